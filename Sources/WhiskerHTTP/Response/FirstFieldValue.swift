package import HTTPTypes

extension HTTPFields {
    /// The value of the first field named `name`, `nil` when there is none: for a field that is
    /// sent once (`Content-Type`, `ETag`), or to learn whether one is there at all.
    ///
    /// The subscript (`fields[.contentType]`) joins the values of every field of that name into a
    /// new string through a lazy sequence, even when there is one: on the response path it was the
    /// most expensive read of a request (0.7 µs of the CatService's 28 µs, `perf record`).
    ///
    /// A name of another length is passed over without comparing the names: most fields are not
    /// the one looked for, and `String`'s comparison of two different names costs a call into the
    /// standard library's general comparison each (the range step's three lookups made 9 a
    /// response, counted with cachegrind).
    package func firstValue(_ name: HTTPField.Name) -> String? {
        let length = name.canonicalName.utf8.count
        for index in indices {
            let candidate = self[index].name.canonicalName
            if candidate.utf8.count == length && candidate == name.canonicalName { return self[index].value }
        }
        return nil
    }
}
