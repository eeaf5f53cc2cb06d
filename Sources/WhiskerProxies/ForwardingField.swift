public import WhiskerCore
public import WhiskerSockets

extension WhiskerServer {
    /// The field a trusted reverse proxy writes the client's address into, as nginx's
    /// `real_ip_header` names it: only that field is read from that proxy, and any other
    /// forwarding field in the request is the client's own writing, passed through, and ignored.
    ///
    ///     configuration.reverseProxies = try .init(trusting: ["10.0.0.0/8"])       // X-Forwarded-For
    ///     configuration.reverseProxies?.forwardingField = .forwarded                // a proxy that sets Forwarded
    ///
    /// A struct over a closed set, so that a field can be added without breaking a `switch`.
    public struct ForwardingField: Sendable, Hashable, CustomStringConvertible {
        enum Kind: Hashable { case xForwardedFor, forwarded, none }
        let kind: Kind

        /// `X-Forwarded-For` (with `X-Forwarded-Proto` for the scheme): what nginx's
        /// `proxy_add_x_forwarded_for`, HAProxy's `option forwardfor` and most cloud load
        /// balancers append to.
        public static let xForwardedFor = ForwardingField(kind: .xForwardedFor)
        /// `Forwarded` (RFC 7239), its `for=` and `proto=`: what a proxy configured to append an
        /// element sets (HAProxy's `option forwarded`, Envoy, some CDNs).
        public static let forwarded = ForwardingField(kind: .forwarded)
        /// None: the proxy says who the client is by the PROXY protocol only, or not at all; the
        /// client is the proxy's PROXY header source (or the proxy itself).
        public static let none = ForwardingField(kind: .none)

        /// The field named `name`: `X-Forwarded-For`, `Forwarded` or `none`, in any case; `nil`
        /// for anything else.
        public init?(_ name: String) {
            switch name.lowercased() {
            case "x-forwarded-for": kind = .xForwardedFor
            case "forwarded": kind = .forwarded
            case "none": kind = .none
            default: return nil
            }
        }

        private init(kind: Kind) { self.kind = kind }

        /// The field's name (`X-Forwarded-For`, `Forwarded`, `none`).
        public var description: String {
            switch kind {
            case .xForwardedFor: "X-Forwarded-For"
            case .forwarded: "Forwarded"
            case .none: "none"
            }
        }
    }

    /// A range of trusted proxies that writes another field than
    /// ``WhiskerCore/WhiskerServer/ReverseProxies/forwardingField`` (a CDN that sets `Forwarded`
    /// in front of an nginx that sets `X-Forwarded-For`); its addresses are trusted too.
    public struct ProxyForwardingField: Sendable, Equatable {
        /// The proxies' addresses.
        public var range: IPAddressRange
        /// The field they write.
        public var field: ForwardingField

        /// The proxies in `range` write `field`.
        /// - Parameters:
        ///   - range: The proxies' addresses.
        ///   - field: The field they write the client into.
        public init(_ range: IPAddressRange, field: ForwardingField) {
            self.range = range
            self.field = field
        }
    }
}

extension WhiskerServer.ReverseProxies {
    /// Trusts the proxies `entries` name, each an address or CIDR range whose proxies set
    /// ``forwardingField`` (`"10.0.0.0/8"`), or a range and the field its proxies set
    /// (`"192.0.2.0/24=Forwarded"`, `"127.0.0.1=X-Forwarded-For"`, `"10.1.0.0/16=none"`): the form
    /// of `cat-service --trusted-proxy` and of the `proxies.trusted` key.
    ///
    ///     configuration.reverseProxies = try .init(trustingEntries: ["127.0.0.1", "192.0.2.0/24=Forwarded"])
    ///
    /// - Parameters:
    ///   - entries: The ranges, each with its field or not.
    ///   - forwardingField: The field of the ranges that do not name one.
    /// - Throws: `WhiskerServerError` naming the first entry that is not a range, or whose field
    ///   is not `X-Forwarded-For`, `Forwarded` or `none`.
    public init(trustingEntries entries: [String], forwardingField: WhiskerServer.ForwardingField = .xForwardedFor) throws(WhiskerServerError) {
        self.init(trusted: [])
        self.forwardingField = forwardingField
        for entry in entries {
            let parts = entry.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let range: IPAddressRange
            do {
                range = try IPAddressRange(String(parts[0]).trimmingSpaces())
            } catch {
                throw WhiskerServerError("\(error)")
            }
            guard parts.count == 2 else {
                trusted.append(range)
                continue
            }
            guard let field = WhiskerServer.ForwardingField(String(parts[1]).trimmingSpaces()) else {
                throw WhiskerServerError("\"\(entry)\": the field after = must be X-Forwarded-For, Forwarded or none")
            }
            forwardingFields.append(.init(range, field: field))
        }
    }
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        var text = Substring(self)
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return String(text)
    }
}
