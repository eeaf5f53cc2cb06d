public import HTTPTypes
public import WhiskerCore

/// The routes the router, HTTP/1.1 and HTTP/2 targets share: OpenAPI templates with static,
/// parameter and mixed segments (the CatService's and the router tests' shapes), each with the
/// methods it answers. A route's value is its index here.
public enum FuzzRoutes {
    public static let all: [(method: HTTPRequest.Method, template: String)] = [
        (.get, "/"),
        (.get, "/pets"),
        (.post, "/pets"),
        (.get, "/pets/"),
        (.get, "/pets/mine"),
        (.get, "/pets/{petId}"),
        (.delete, "/pets/{petId}"),
        (.put, "/pets/{petId}"),
        (.get, "/pets/{petId}/photos"),
        (.get, "/pets/{id}.zip"),
        (.get, "/pets/mine/toys"),
        (.get, "/users/{userId}/toys"),
        (.get, "/users/{userId}/pets/{petId}/toys/{toyId}.{format}"),
        (.get, "/files/{name}"),
        (.get, "/files/{name}.{ext}"),
        (.get, "/files/{name}.gz"),
        (.get, "/files/{name}.tar.gz"),
        (.get, "/files/{dir}/{name}"),
        (.get, "/file/{name}.zip"),
        (.get, "/file/{name}.zip/info"),
        (.get, "/file/{id}/raw"),
        (.get, "/{a}-{b}"),
        (.get, "/x-y"),
        (.get, "/v2/pets/{id}"),
        (.head, "/clip"),
        (.get, "/clip"),
        (.options, "/clip"),
        (.post, "/echo"),
        (.put, "/echo"),
        (.get, "/hello"),
        (.get, "/api/emoji"),
        (.get, "/~me"),
        (.patch, "/a/{b}/c{d}e/{f}"),
        (HTTPRequest.Method("PURGE")!, "/cache/{key}"),
    ]

    /// A router with every route of ``all`` registered, its value the route's index.
    public static let router: Router<Int> = {
        var router = Router<Int>()
        for (index, route) in all.enumerated() {
            do {
                try router.register(index, method: route.method, path: route.template)
            } catch {
                fatalError("fuzz route \(route.template) does not register: \(error)")
            }
        }
        return router
    }()
}
