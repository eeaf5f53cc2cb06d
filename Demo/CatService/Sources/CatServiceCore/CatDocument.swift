import Foundation
import Whisker

extension OpenAPIDocument {
    /// The CatService's own document, bundled, as written.
    /// - Throws: ``MissingResourceError`` if the bundled `openapi.yaml` is missing.
    static func catService() throws -> OpenAPIDocument {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml") else {
            throw MissingResourceError(name: "openapi.yaml", underlying: nil)
        }
        do {
            return OpenAPIDocument(yaml: Array(try Data(contentsOf: url)))
        } catch {
            throw MissingResourceError(name: url.path, underlying: error)
        }
    }
}
