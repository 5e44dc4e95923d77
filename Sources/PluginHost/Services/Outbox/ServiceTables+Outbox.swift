import Foundation
import Outbox
import PluginABI
import PluginAPI
import Storage

extension ServiceTables {
    // MARK: assist.outbox/1

    nonisolated(unsafe) static let outboxTable: UnsafeMutablePointer<assist_outbox_service> = {
        var table = assist_outbox_service()
        table.struct_size = UInt32(MemoryLayout<assist_outbox_service>.size)
        table.enqueue = { host, request, job, err in
            guard let context = PluginContext.from(host), let request else { return ASSIST_E_INVALID }
            do {
                let (made, attempts) = try outboxRequest(request, context: context)
                let id = try context.services.outbox.enqueue(made, maxAttempts: attempts)
                job?.pointee = id
                return ASSIST_OK
            } catch {
                return outboxFailure(error, err, context: context, otherwise: "The outbox cannot store the request")
            }
        }
        table.on_outcome = { host, callback, user in
            guard let context = PluginContext.from(host), context.onMain("outbox.on_outcome") else {
                return ASSIST_E_INVALID
            }
            guard let callback else {
                context.services.outbox.setHandler(nil)
                return ASSIST_OK
            }
            context.services.outbox.setHandler { outcome in
                deliverOutcome(outcome, to: callback, user: user)
            }
            return ASSIST_OK
        }
        table.acknowledge = { host, job in
            guard let context = PluginContext.from(host) else { return ASSIST_E_INVALID }
            return context.services.outbox.acknowledge(job) ? ASSIST_OK : ASSIST_E_NOT_FOUND
        }
        table.cancel = { host, job in
            guard let context = PluginContext.from(host) else { return ASSIST_E_INVALID }
            return context.services.outbox.cancel(job) ? ASSIST_OK : ASSIST_E_NOT_FOUND
        }
        table.pending = { host, count in
            guard let context = PluginContext.from(host), let count, let pending = context.services.outbox.pending()
            else { return ASSIST_E_INVALID }
            count.pointee = Int64(pending)
            return ASSIST_OK
        }
        table.send_now = { host, request, job, err in
            guard let context = PluginContext.from(host), context.onMain("outbox.send_now"), let request else {
                return ASSIST_E_INVALID
            }
            do {
                let id = try context.services.outbox.sendNow(try outboxRequest(request, context: context).request)
                job?.pointee = id
                return ASSIST_OK
            } catch {
                return outboxFailure(error, err, context: context, otherwise: "The request cannot be sent")
            }
        }
        table.is_online = { host, name in
            guard let context = PluginContext.from(host), let name else { return false }
            return context.services.outbox.isOnline(String(cString: name))
        }
        return allocate(table)
    }()

    /// What a failed `enqueue` or `send_now` returns, its message in `err`: a request that can never be sent as
    /// written (its method, URL, a header, a file part) ASSIST_E_INVALID, a file part outside the plugin's own
    /// files ASSIST_E_PERMISSION, the outbox's storage failing ASSIST_E_IO (a full disk also said to the user:
    /// the request was not stored).
    static func outboxFailure(
        _ error: any Error, _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, context: PluginContext,
        otherwise: String
    ) -> assist_status {
        switch error {
        case let error as PermissionDenied:
            return denied(error, err)
        case let error as OutboxError:
            err?.pointee = strdup(error.message)
            return error.code == .badRequest || error.code == .unreadableBody ? ASSIST_E_INVALID : ASSIST_E_IO
        case let error as StorageError:
            err?.pointee = strdup(error.message)
            context.services.storage.sayIfUserMustAct(error)
            guard error.code == .badPath else { return ASSIST_E_IO }
            context.services.permissions.refused(.service(.upload), detail: error.message)
            return ASSIST_E_PERMISSION
        default:
            err?.pointee = strdup("\(otherwise): \(error).")
            return ASSIST_E_IO
        }
    }

    /// The plugin's C request as an `OutboxRequest`, with how many attempts it may take (8 for 0); file parts
    /// must be the plugin's own files.
    static func outboxRequest(_ pointer: UnsafePointer<assist_outbox_request>, context: PluginContext) throws -> (
        request: OutboxRequest, maxAttempts: Int
    ) {
        guard let raw = assist_outbox_request.read(pointer) else {
            throw OutboxError.badRequest("the request's struct_size is below ABI 1.0's")
        }
        guard let method = raw.method, let url = raw.url else {
            throw OutboxError.badRequest("the request lacks a method or URL")
        }
        func fields(_ pointer: UnsafePointer<assist_http_field>?, _ count: Int) throws -> [(String, String)] {
            guard let elements = assist_http_field.readArray(pointer, count: count) else {
                throw OutboxError.badRequest("a header or field list is missing or its struct_size is wrong")
            }
            return try elements.enumerated().map { index, field in
                guard let name = field.name, let value = field.value else {
                    throw OutboxError.badRequest("header or field \(index + 1) has no name or value")
                }
                return (String(cString: name), String(cString: value))
            }
        }
        var request = OutboxRequest(
            method: String(cString: method), url: String(cString: url),
            headers: try fields(raw.headers, raw.header_count).map { OutboxRequest.Header($0.0, $0.1) },
            tag: raw.tag.map { String(cString: $0) })
        switch raw.body {
        case ASSIST_OUTBOX_BODY_NONE: request.body = .none
        case ASSIST_OUTBOX_BODY_JSON:
            guard raw.json_size == 0 || raw.json != nil else {
                throw OutboxError.badRequest("the JSON body is missing")
            }
            request.body = .json(raw.json.map { Data(bytes: $0, count: raw.json_size) } ?? Data())
        case ASSIST_OUTBOX_BODY_FORM:
            request.body = .form(try fields(raw.fields, raw.field_count).map { OutboxRequest.Field($0.0, $0.1) })
        case ASSIST_OUTBOX_BODY_MULTIPART:
            guard let elements = assist_outbox_part.readArray(raw.parts, count: raw.part_count) else {
                throw OutboxError.badRequest("the parts are missing or their struct_size is wrong")
            }
            let parts = try elements.enumerated().map { index, part in
                try outboxPart(part, index: index, context: context)
            }
            request.body = .multipart(boundary: "assist-\(UUID().uuidString)", parts: parts)
        default: throw OutboxError.badRequest("body kind \(raw.body) is unknown")
        }
        return (request, raw.max_attempts == 0 ? 8 : Int(raw.max_attempts))
    }

    private static func outboxPart(_ part: assist_outbox_part, index: Int, context: PluginContext) throws
        -> OutboxRequest.Part
    {
        guard let name = part.name else { throw OutboxError.badRequest("part \(index + 1) has no name") }
        let text = { (pointer: UnsafePointer<CChar>?) in pointer.map { String(cString: $0) } }
        guard let path = text(part.path) else { return .field(String(cString: name), text(part.text) ?? "") }
        let file = try context.services.storage.media.fileToUpload(path)
        guard FileManager.default.fileExists(atPath: file.path) else {
            throw OutboxError.unreadableBody(path, cause: "it is missing")
        }
        // Held to the file it is now: opened without following a link, a plain file; what is sent is that file.
        let identity: String
        switch PinnedFile.identity(file.path) {
        case .success(let pinned): identity = pinned
        case .failure(let problem):
            context.logger.debug("outbox: \(path) is not uploaded: \(problem.reason)")
            throw StorageError.badPath(path)
        }
        return .file(
            String(cString: name), path: file.path, filename: text(part.filename) ?? file.lastPathComponent,
            contentType: text(part.content_type) ?? "application/octet-stream", identity: identity)
    }

    /// Calls the plugin's callback with C copies that live until it returns.
    private static func deliverOutcome(
        _ outcome: OutboxStore.Outcome, to callback: assist_outbox_outcome_cb, user: UnsafeMutableRawPointer?
    ) -> Bool {
        var strings: [UnsafeMutablePointer<CChar>?] = []
        defer { strings.forEach { free($0) } }
        func copy(_ text: String?) -> UnsafePointer<CChar>? {
            guard let text else { return nil }
            let made = strdup(text)
            strings.append(made)
            return UnsafePointer(made)
        }
        let headers = outcome.headers.map { header in
            var field = assist_http_field()
            field.struct_size = UInt32(MemoryLayout<assist_http_field>.size)
            field.name = copy(header.name)
            field.value = copy(header.value)
            return field
        }
        return headers.withUnsafeBufferPointer { headerBuffer in
            outcome.body.withUnsafeBytes { body in
                var raw = assist_outbox_outcome()
                raw.struct_size = UInt32(MemoryLayout<assist_outbox_outcome>.size)
                raw.job = outcome.jobID
                raw.status = Int32(outcome.status ?? 0)
                raw.truncated = outcome.truncated
                raw.tag = copy(outcome.tag)
                raw.headers = headerBuffer.baseAddress
                raw.header_count = headerBuffer.count
                raw.body = body.baseAddress?.assumingMemoryBound(to: UInt8.self)
                raw.body_size = body.count
                raw.error = copy(outcome.error)
                return callback(user, &raw)
            }
        }
    }
}
