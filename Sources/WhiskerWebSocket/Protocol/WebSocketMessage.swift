/// A whole WebSocket message, its fragments joined: text (checked to be UTF-8) or binary.
///
/// ```swift
/// for try await message in socket.messages {
///     switch message {
///     case .text(let text): try await socket.send(.text(text.uppercased()))
///     case .binary(let bytes): try await socket.send(.binary(bytes))
///     }
/// }
/// ```
public enum WebSocketMessage: Sendable, Equatable {
    /// A text message (opcode 0x1).
    case text(String)
    /// A binary message (opcode 0x2).
    case binary([UInt8])
}
