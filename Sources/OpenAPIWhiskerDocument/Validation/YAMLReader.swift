/// Why a YAML document could not be read, and where.
package struct YAMLSyntaxError: Error, CustomStringConvertible {
    let line: Int
    let reason: String
    package var description: String { "YAML line \(line): \(reason)" }
}

/// A reader for the YAML that OpenAPI documents are written in, as JSON values: block mappings and
/// sequences, plain, single- and double-quoted scalars (continued on deeper lines too), block
/// scalars (`|` and `>`, with `-` or `+`), flow sequences and mappings, comments. Not anchors,
/// aliases, tags or several documents in one file: it says so, and the JSON form of the document
/// is the way out (``OpenAPIDocument/json``). The docs page's script reads the same subset.
package struct YAMLReader {
    private struct Line {
        var indent: Int
        var text: Substring
        let raw: Substring
        let number: Int
    }

    private var lines: [Line]
    private var at = 0

    package static func read(_ bytes: [UInt8]) throws(YAMLSyntaxError) -> JSONValue {
        var reader = YAMLReader(text: String(decoding: bytes, as: UTF8.self))
        reader.skipBlank()
        guard reader.at < reader.lines.count else { return .null }
        if reader.lines[reader.at].text == "---" {
            reader.at += 1
            reader.skipBlank()
        }
        let value = try reader.node(deeperThan: -1)
        reader.skipBlank()
        if reader.at < reader.lines.count {
            throw YAMLSyntaxError(line: reader.lines[reader.at].number, reason: "unexpected text (a second document, or indentation the reader does not follow)")
        }
        return value
    }

    private init(text: String) {
        var lines: [Line] = []
        // A line ends at LF or CRLF (a document saved on Windows): to Swift, "\r\n" is one Character,
        // not a "\n" after a "\r".
        let lineBreak: (Character) -> Bool = { $0 == "\n" || $0 == "\r\n" }
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: lineBreak).enumerated() {
            let indent = raw.prefix { $0 == " " }.count
            lines.append(Line(indent: indent, text: Self.withoutComment(raw.dropFirst(indent)).trimmingSpaces, raw: raw, number: index + 1))
        }
        self.lines = lines
    }

    /// The text before a comment (`#` at the start or after a space, outside quotes).
    private static func withoutComment(_ text: Substring) -> Substring {
        var quote: Character?
        var previous: Character = " "
        for index in text.indices {
            let character = text[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if (character == "'" || character == "\"") && " :[{,-".contains(previous) {
                quote = character
            } else if character == "#" && (previous == " " || previous == "\t") {
                return text[..<index]
            }
            previous = character
        }
        return text
    }

    private mutating func skipBlank() {
        while at < lines.count, lines[at].text.isEmpty { at += 1 }
    }

    private func error(_ reason: String) -> YAMLSyntaxError {
        YAMLSyntaxError(line: at < lines.count ? lines[at].number : lines.count, reason: reason)
    }

    /// The node that starts at the next non-blank line, if it is indented more than `parent`.
    private mutating func node(deeperThan parent: Int) throws(YAMLSyntaxError) -> JSONValue {
        skipBlank()
        guard at < lines.count, lines[at].indent > parent else { return .null }
        let line = lines[at]
        if line.text == "-" || line.text.hasPrefix("- ") { return try sequence(at: line.indent) }
        if Self.keySplit(line.text) != nil { return try mapping(at: line.indent) }
        at += 1
        return try scalarContinued(line.text, indent: parent)
    }

    private mutating func mapping(at indent: Int) throws(YAMLSyntaxError) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = []
        while true {
            skipBlank()
            guard at < lines.count, lines[at].indent == indent else { break }
            let line = lines[at]
            guard !line.text.hasPrefix("- "), let (rawKey, rest) = Self.keySplit(line.text) else {
                throw error("expected `key: value` in a mapping")
            }
            let key = try Self.keyText(rawKey, line: line.number)
            guard !members.contains(where: { $0.key == key }) else { throw error("the key \(key) twice in one mapping") }
            at += 1
            let value: JSONValue
            if rest.isEmpty {
                skipBlank()
                // A sequence may sit at its key's own indentation.
                if at < lines.count, lines[at].indent == indent, lines[at].text == "-" || lines[at].text.hasPrefix("- ") {
                    value = try sequence(at: indent)
                } else {
                    value = try node(deeperThan: indent)
                }
            } else {
                value = try inlineValue(rest, indent: indent)
            }
            members.append((key, value))
        }
        return .object(members)
    }

    private mutating func sequence(at indent: Int) throws(YAMLSyntaxError) -> JSONValue {
        var items: [JSONValue] = []
        while true {
            skipBlank()
            guard at < lines.count, lines[at].indent == indent, lines[at].text == "-" || lines[at].text.hasPrefix("- ") else { break }
            let line = lines[at]
            let item = line.text.dropFirst(1).drop { $0 == " " }
            if item.isEmpty {
                at += 1
                items.append(try node(deeperThan: indent))
            } else if !item.hasPrefix("[") && !item.hasPrefix("{") && !item.hasPrefix("\"") && !item.hasPrefix("'") && Self.keySplit(item) != nil {
                // `- key: value` opens a mapping at the item's column.
                lines[at].indent = indent + (line.text.count - item.count)
                lines[at].text = item
                items.append(try mapping(at: lines[at].indent))
            } else {
                at += 1
                items.append(try inlineValue(item, indent: indent))
            }
        }
        return .array(items)
    }

    /// A value written after `key:` or `- `.
    private mutating func inlineValue(_ text: Substring, indent: Int) throws(YAMLSyntaxError) -> JSONValue {
        if let indicator = text.first, indicator == "|" || indicator == ">" {
            let chomping = text.dropFirst().first
            guard text.count == 1 || (text.count == 2 && (chomping == "-" || chomping == "+")) else {
                throw error("a block scalar's header other than |, |-, |+, >, >-, >+")
            }
            return .string(blockScalar(folded: indicator == ">", chomping: text.count == 2 ? chomping : nil, parent: indent))
        }
        return try scalarContinued(text, indent: indent)
    }

    /// A flow or plain scalar, joined with the deeper lines that continue it.
    private mutating func scalarContinued(_ text: Substring, indent: Int) throws(YAMLSyntaxError) -> JSONValue {
        var text = String(text)
        let isPlain = !(text.hasPrefix("\"") || text.hasPrefix("'") || text.hasPrefix("[") || text.hasPrefix("{"))
        while at < lines.count, !lines[at].text.isEmpty, lines[at].indent > indent {
            // A flow sequence ends at its bracket; a plain scalar at the next `key:` line.
            if text.hasPrefix("["), Self.isClosedFlow(text) { break }
            if isPlain, Self.keySplit(lines[at].text) != nil { break }
            text += " " + lines[at].text
            at += 1
        }
        var flow = FlowReader(text: Substring(text), line: at > 0 ? lines[at - 1].number : 1)
        let value = try flow.value(inFlow: false)
        guard flow.isAtEnd else { throw error("text after a value: \(text)") }
        return value
    }

    private static func isClosedFlow(_ text: String) -> Bool {
        guard let last = text.last else { return true }
        return last == "]" || last == "}"
    }

    private mutating func blockScalar(folded: Bool, chomping: Character?, parent: Int) -> String {
        var collected: [Substring] = []
        var indent: Int?
        while at < lines.count, lines[at].raw.allSatisfy({ $0 == " " }) || lines[at].indent > parent {
            let raw = lines[at].raw
            if indent == nil, !raw.allSatisfy({ $0 == " " }) { indent = lines[at].indent }
            collected.append(raw.count >= (indent ?? 0) ? raw.dropFirst(indent ?? raw.count) : "")
            at += 1
        }
        var trailing = 0
        while let last = collected.last, last.isEmpty {
            collected.removeLast()
            trailing += 1
        }
        var text = ""
        if folded {
            for line in collected {
                if line.isEmpty {
                    text += "\n"
                } else {
                    if !text.isEmpty, !text.hasSuffix("\n") { text += " " }
                    text += line
                }
            }
        } else {
            text = collected.joined(separator: "\n")
        }
        switch chomping {
        case "-": return text
        case "+": return text + String(repeating: "\n", count: trailing + 1)
        default: return text.isEmpty ? "" : text + "\n"
        }
    }

    /// `key` and the rest of a `key: value` line, or `nil` if the line is not one.
    static func keySplit(_ text: Substring) -> (key: Substring, rest: Substring)? {
        var quote: Character?
        var index = text.startIndex
        if let first = text.first, first == "'" || first == "\"" { quote = first; index = text.index(after: index) }
        while index < text.endIndex {
            let character = text[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == ":" {
                let next = text.index(after: index)
                if next == text.endIndex || text[next] == " " {
                    return (text[..<index].trimmingSpaces, text[next...].trimmingSpaces)
                }
            } else if index == text.startIndex, "[{".contains(character) {
                return nil
            }
            index = text.index(after: index)
        }
        return nil
    }

    private static func keyText(_ key: Substring, line: Int) throws(YAMLSyntaxError) -> String {
        var flow = FlowReader(text: key, line: line)
        let value = try flow.value(inFlow: false)
        switch value {
        case .string(let text): return text
        case .null: return String(key)
        default: return value.jsonText
        }
    }
}

/// Scalars and flow collections (`[a, b]`, `{a: 1}`) on one logical line.
private struct FlowReader {
    let text: Substring
    let line: Int
    var at: Substring.Index

    init(text: Substring, line: Int) {
        self.text = text
        self.line = line
        self.at = text.startIndex
    }

    var isAtEnd: Bool {
        text[at...].allSatisfy { $0 == " " }
    }

    private func error(_ reason: String) -> YAMLSyntaxError { YAMLSyntaxError(line: line, reason: reason) }

    private mutating func skipSpace() {
        while at < text.endIndex, text[at] == " " { at = text.index(after: at) }
    }

    mutating func value(inFlow: Bool) throws(YAMLSyntaxError) -> JSONValue {
        skipSpace()
        guard at < text.endIndex else { return .null }
        switch text[at] {
        case "[": return try collection(close: "]")
        case "{": return try collection(close: "}")
        case "'": return .string(try singleQuoted())
        case "\"": return .string(try doubleQuoted())
        case "&", "*", "!":
            throw error("anchors, aliases and tags are not read here; serve the document's JSON form")
        default:
            let start = at
            while at < text.endIndex, !(inFlow && ",]}".contains(text[at])) {
                if inFlow, text[at] == ":", text.index(after: at) == text.endIndex || text[text.index(after: at)] == " " { break }
                at = text.index(after: at)
            }
            return Self.plain(text[start..<at].trimmingSpaces)
        }
    }

    private mutating func collection(close: Character) throws(YAMLSyntaxError) -> JSONValue {
        at = text.index(after: at)
        var items: [JSONValue] = []
        var members: [(key: String, value: JSONValue)] = []
        while true {
            skipSpace()
            guard at < text.endIndex else { throw error("a flow collection without its \(close)") }
            if text[at] == close {
                at = text.index(after: at)
                return close == "]" ? .array(items) : .object(members)
            }
            let item = try value(inFlow: true)
            skipSpace()
            if close == "}" {
                guard at < text.endIndex, text[at] == ":" else { throw error("expected `key: value` in a flow mapping") }
                at = text.index(after: at)
                let key = item.string ?? item.jsonText
                members.append((key, try value(inFlow: true)))
                skipSpace()
            } else {
                items.append(item)
            }
            guard at < text.endIndex else { throw error("a flow collection without its \(close)") }
            if text[at] == "," { at = text.index(after: at) } else if text[at] != close { throw error("expected , or \(close)") }
        }
    }

    private mutating func singleQuoted() throws(YAMLSyntaxError) -> String {
        at = text.index(after: at)
        var out = ""
        while at < text.endIndex {
            let character = text[at]
            at = text.index(after: at)
            if character == "'" {
                if at < text.endIndex, text[at] == "'" {
                    out.append("'")
                    at = text.index(after: at)
                } else {
                    return out
                }
            } else {
                out.append(character)
            }
        }
        throw error("a quoted scalar without its closing quote")
    }

    private mutating func doubleQuoted() throws(YAMLSyntaxError) -> String {
        at = text.index(after: at)
        var out = ""
        while at < text.endIndex {
            let character = text[at]
            at = text.index(after: at)
            switch character {
            case "\"": return out
            case "\\":
                guard at < text.endIndex else { break }
                let escaped = text[at]
                at = text.index(after: at)
                switch escaped {
                case "n": out.append("\n")
                case "t": out.append("\t")
                case "r": out.append("\r")
                case "0": out.append("\0")
                case "x", "u", "U":
                    let count = escaped == "x" ? 2 : escaped == "u" ? 4 : 8
                    guard let end = text.index(at, offsetBy: count, limitedBy: text.endIndex),
                          let code = UInt32(text[at..<end], radix: 16), let scalar = Unicode.Scalar(code)
                    else { throw error("a bad \\\(escaped) escape") }
                    out.unicodeScalars.append(scalar)
                    at = end
                default: out.append(escaped)
                }
            default: out.append(character)
            }
        }
        throw error("a quoted scalar without its closing quote")
    }

    /// A plain scalar: null, a boolean, a number, or text (YAML 1.2's core schema).
    static func plain(_ text: Substring) -> JSONValue {
        switch text {
        case "", "~", "null", "Null", "NULL": return .null
        case "true", "True", "TRUE": return .bool(true)
        case "false", "False", "FALSE": return .bool(false)
        case ".inf", ".Inf", "+.inf": return .number(.infinity)
        case "-.inf", "-.Inf": return .number(-.infinity)
        default: break
        }
        if let value = Int64(text) { return .integer(value) }
        if text.first.map({ $0.isNumber || $0 == "-" || $0 == "+" || $0 == "." }) == true,
           text.allSatisfy({ $0.isNumber || "+-.eE".contains($0) }), let value = Double(text) {
            return .number(value)
        }
        return .string(String(text))
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
