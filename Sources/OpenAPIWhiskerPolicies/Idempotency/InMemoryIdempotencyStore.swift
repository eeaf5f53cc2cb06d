import HTTPTypes
import Synchronization

/// The idempotency records of this process: the default ``IdempotencyStore``, bounded in count and
/// in bytes.
///
/// Each instance of a service behind a load balancer keeps its own: a retry that reaches another
/// instance runs again. Share a store between instances (`RedisStore`) when that matters.
///
/// The records are kept in the order they were made. Past ``maxRecords`` records or
/// ``maxBytes`` bytes of kept responses, the oldest completed or expired ones are forgotten first;
/// a claim still in flight is forgotten only when nothing else is left (a key forgotten while its
/// request runs could run twice). An expired record is forgotten when its key comes again, or when
/// it is the oldest as a new one is made.
public final class InMemoryIdempotencyStore: IdempotencyStore {
    /// The most records kept.
    public let maxRecords: Int
    /// The most bytes of kept responses (bodies, fields and keys), about.
    public let maxBytes: Int
    private let table: Mutex<Table>

    /// A store of at most `maxRecords` records and `maxBytes` bytes of responses (10,000 and 64 MiB
    /// by default).
    /// - Parameters:
    ///   - maxRecords: The most records kept; at least 1.
    ///   - maxBytes: The most bytes of kept responses; at least 1.
    public init(maxRecords: Int = 10_000, maxBytes: Int = 64 << 20) {
        precondition(maxRecords >= 1 && maxBytes >= 1, "an idempotency store keeps at least 1 record and 1 byte")
        self.maxRecords = maxRecords
        self.maxBytes = maxBytes
        table = Mutex(Table())
    }

    public func claim(_ key: String, fingerprint: String, lease: Duration) async throws -> IdempotencyRecord? {
        claimNow(key, fingerprint: fingerprint, lease: lease, now: .now)
    }

    public func complete(_ key: String, fingerprint: String, response: IdempotentResponse, keepFor: Duration) async throws {
        let now = ContinuousClock.now
        table.withLock { table in
            guard case .inFlight(fingerprint)? = table.live(key, now: now)?.record else { return }
            table.put(key, Entry(record: .completed(fingerprint: fingerprint, response: response), expires: now + keepFor), now: now, limits: (maxRecords, maxBytes))
        }
    }

    public func release(_ key: String, fingerprint: String) async throws {
        table.withLock { table in
            guard case .inFlight(fingerprint)? = table.live(key, now: .now)?.record else { return }
            table.remove(key)
        }
    }

    /// The records kept now, and the bytes they hold.
    var usage: (records: Int, bytes: Int) { table.withLock { ($0.entries.count, $0.bytes) } }

    func claimNow(_ key: String, fingerprint: String, lease: Duration, now: ContinuousClock.Instant) -> IdempotencyRecord? {
        table.withLock { table in
            if let entry = table.live(key, now: now) { return entry.record }
            table.put(key, Entry(record: .inFlight(fingerprint: fingerprint), expires: now + lease), now: now, limits: (maxRecords, maxBytes))
            return nil
        }
    }

    private struct Entry {
        var record: IdempotencyRecord
        var expires: ContinuousClock.Instant

        /// What the entry holds, about: its key, its fingerprint, and a completed response.
        func bytes(key: String) -> Int {
            var total = key.utf8.count + record.fingerprint.utf8.count + 64
            if case .completed(_, let response) = record {
                total += response.body.count + response.headerFields.reduce(0) { $0 + $1.name.rawName.utf8.count + $1.value.utf8.count + 4 }
            }
            return total
        }
    }

    /// The records, and their keys in the order they were made (`order[head...]`; a key may be
    /// there again after it was replaced, which `sequence` tells apart).
    private struct Table {
        var entries: [String: (entry: Entry, sequence: Int)] = [:]
        var order: [(key: String, sequence: Int)] = []
        var head = 0
        var next = 0
        var bytes = 0

        /// `key`'s entry unless it expired (then it is forgotten).
        mutating func live(_ key: String, now: ContinuousClock.Instant) -> Entry? {
            guard let (entry, _) = entries[key] else { return nil }
            guard entry.expires > now else {
                remove(key)
                return nil
            }
            return entry
        }

        mutating func put(_ key: String, _ entry: Entry, now: ContinuousClock.Instant, limits: (records: Int, bytes: Int)) {
            remove(key)
            next += 1
            entries[key] = (entry, next)
            order.append((key, next))
            bytes += entry.bytes(key: key)
            makeRoom(now: now, limits: limits, keeping: key)
        }

        mutating func remove(_ key: String) {
            guard let (entry, _) = entries.removeValue(forKey: key) else { return }
            bytes -= entry.bytes(key: key)
        }

        /// Forgets the oldest records, a claim in flight only when nothing else is left, until
        /// both limits hold; `keeping` (the one just put) stays.
        private mutating func makeRoom(now: ContinuousClock.Instant, limits: (records: Int, bytes: Int), keeping: String) {
            var position = head
            var inFlightSkipped = false
            while entries.count > limits.records || bytes > limits.bytes {
                if position == order.count {
                    // Only claims in flight are left: forget the oldest of them after all.
                    guard inFlightSkipped else { break }
                    inFlightSkipped = false
                    position = head
                    while position < order.count, !isCurrent(order[position]) || order[position].key == keeping { position += 1 }
                    guard position < order.count else { break }
                    remove(order[position].key)
                    continue
                }
                let candidate = order[position]
                position += 1
                guard isCurrent(candidate), candidate.key != keeping else { continue }
                if case .inFlight = entries[candidate.key]!.entry.record, entries[candidate.key]!.entry.expires > now {
                    inFlightSkipped = true
                    continue
                }
                remove(candidate.key)
            }
            // Drop what is no longer current at the front; and when the replaced keys outnumber
            // the records (each completion replaces a claim), keep only the current ones: `order`
            // stays within twice the records, in amortised constant time.
            while head < order.count, !isCurrent(order[head]) || isExpired(order[head], now: now) {
                if isCurrent(order[head]) { remove(order[head].key) }
                head += 1
            }
            if order.count - head > 2 * entries.count + 64 {
                order = order[head...].filter(isCurrent)
                head = 0
            } else if head > 1024, head * 2 > order.count {
                order.removeFirst(head)
                head = 0
            }
        }

        private func isCurrent(_ slot: (key: String, sequence: Int)) -> Bool { entries[slot.key]?.sequence == slot.sequence }

        private func isExpired(_ slot: (key: String, sequence: Int), now: ContinuousClock.Instant) -> Bool {
            entries[slot.key].map { $0.entry.expires <= now } ?? false
        }
    }
}
