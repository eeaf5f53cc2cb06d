// MARK: - DARWIN: the default I/O backend (a note, no code)
//
// Linux: the I/O workers wait on epoll (EpollSelector.swift, in this folder, `#if os(Linux)`).
// Darwin has no epoll, and Whisker does not use kqueue: there the default backend is the
// Dispatch-source one, `IOBackend.dispatchSources` (DispatchSourceSelector.swift, being written
// on another branch; not in this tree yet). Once it is in, the default is chosen like this:
//
//     #if os(Linux)
//     static let `default`: IOBackend = .epoll
//     #else
//     static let `default`: IOBackend = .dispatchSources
//     #endif
//
// Until then `IOWorker.init` names `EpollSelector` directly, so WhiskerSockets does not build on
// Darwin: that one line is the Dispatch-source branch's to replace.
