import Foundation
import PluginKit

/// Sending rows to AWARE Micro (spec §3.22–24, §5) through the host outbox: the outbox keeps a batch across a
/// crash and sends it when Assist next runs; the sensor keeps the checkpoint, moved only when the server took
/// the batch. Each request gets one attempt; the sensor's own back-off decides the next run.
extension PhotoSensor {
    /// The route for `table`: the form route of the open-source server, or the JSON route as an option.
    func request(for table: String, rows: [(id: Int64, json: String)], deviceID: String) -> OutboxRequest? {
        guard let server = configuration.serverUrl, let number = configuration.studyNumber,
            let key = configuration.studyKey
        else { return nil }
        var base = server
        while base.hasSuffix("/") { base.removeLast() }
        let data = "[" + rows.map(\.json).joined(separator: ",") + "]"
        var request: OutboxRequest
        if configuration.serverType == "aware-micro-json" {
            request = OutboxRequest(method: "POST", url: "\(base)/api/\(number)/\(key)/insert/")
            request.headers = [("Accept", "application/json")]
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let body =
                #"{"deviceId":\#(SensorStore.quoted(deviceID)),"tableName":"\#(table)","timestamp":\#(now),"data":\#(data)}"#
            request.body = .json(Data(body.utf8))
        } else {
            request = OutboxRequest(method: "POST", url: "\(base)/index.php/\(number)/\(key)/\(table)/insert")
            request.body = .form([("device_id", deviceID), ("data", data)])
        }
        request.maxAttempts = 1
        request.tag = "sync:\(table):\(rows.first?.id ?? 0):\(rows.last?.id ?? 0)"
        return request
    }

    /// Success is any 2xx, unless the body is JSON with `"status":404`; an empty or HTML body is success.
    static func succeeded(_ outcome: OutboxOutcome) -> Bool {
        guard (200..<300).contains(outcome.status) else { return false }
        if let object = try? JSONSerialization.jsonObject(with: outcome.body) as? [String: Any],
            (object["status"] as? NSNumber)?.intValue == 404
        {
            return false
        }
        return true
    }

    /// Starts a run unless one is going: the first table's first batch.
    func startSync() {
        guard !syncing else { return }
        guard configuration.canSync else {
            // The setting names are for whoever sets the device up: in the log, not said to the person.
            host.log(.warning, "sending is not set up: serverUrl, studyNumber and studyKey in [photo-sensor]")
            lastSync = (false, phrases.text("sync-not-set-up"))
            syncEnded()
            return
        }
        // A batch from an earlier run (sent before a crash) drives the run when its outcome comes: counted
        // before the handler is set, so that outcome and a first batch of this run are never both sent on.
        let waiting = (try? host.pendingUploads()) ?? 0
        do {
            try host.onOutcome { [weak self] outcome in self?.handleSync(outcome) ?? false }
        } catch {
            lastSync = (false, phrases.text("sync-no-outbox"))
            syncEnded()
            return
        }
        syncing = true
        if waiting == 0 {
            host.onMain { [weak self] in self?.sendBatch(tableIndex: 0) }
        }
    }

    func sendBatch(tableIndex: Int) {
        guard let store, tableIndex < SensorStore.syncedTables.count else {
            syncEnded()
            return
        }
        let table = SensorStore.syncedTables[tableIndex].0
        do {
            let rows = try store.batch(table, after: try store.checkpoint(table), limit: configuration.batchSize)
            guard !rows.isEmpty, let request = request(for: table, rows: rows, deviceID: try store.deviceID()) else {
                tableDone(tableIndex, ok: true, error: nil)
                return
            }
            try host.enqueue(request)
        } catch {
            tableDone(tableIndex, ok: false, error: "\(error)")
        }
    }

    /// An outcome of a batch: the checkpoint moves (and sent rows go with `removeAfterSync`), then the next
    /// batch 0.1 s later; a short batch ends the table; a failure ends the table.
    func handleSync(_ outcome: OutboxOutcome) -> Bool {
        guard let tag = outcome.tag, tag.hasPrefix("sync:"), let store else { return true }
        let parts = tag.split(separator: ":").map(String.init)
        guard parts.count == 4, let first = Int64(parts[2]), let last = Int64(parts[3]),
            let tableIndex = SensorStore.syncedTables.firstIndex(where: { $0.0 == parts[1] })
        else { return true }
        syncing = true
        guard Self.succeeded(outcome) else {
            let reason =
                outcome.status == 401
                ? phrases.text("sync-refused")
                : outcome.error
                    ?? phrases.text(
                        (200..<300).contains(outcome.status) ? "sync-answered-404" : "sync-answered",
                        ["status": String(outcome.status)])
            tableDone(tableIndex, ok: false, error: reason)
            return true
        }
        do {
            let sent = try store.acknowledge(
                parts[1], from: first, through: last, remove: configuration.removeAfterSync)
            if tableIndex == 0 { runSent += sent }
        } catch {
            return false  // offered again at the next start
        }
        if (try? store.batch(parts[1], after: last, limit: 1).isEmpty) == false {
            host.addTimer(milliseconds: 100, repeating: false) { [weak self] in self?.sendBatch(tableIndex: tableIndex)
            }
        } else {
            tableDone(tableIndex, ok: true, error: nil)
        }
        return true
    }

    private func tableDone(_ index: Int, ok: Bool, error: String?) {
        let (table, type) = SensorStore.syncedTables[index]
        var json = #"{"status":\#(ok),"tableName":"\#(table)","objectType":"\#(type)""#
        if let error { json += #","error":\#(SensorStore.quoted(error))"# }
        host.publish(SensorEvents.syncCompletion, json: json + "}")
        if !ok { runFailure = runFailure ?? error ?? "failed" }
        if index + 1 < SensorStore.syncedTables.count {
            sendBatch(tableIndex: index + 1)
        } else {
            lastSync = (runFailure == nil, runFailure)
            recordLastSync(ok: runFailure == nil, sent: runSent, error: runFailure)
            runFailure = nil
            runSent = 0
            syncEnded()
        }
    }

    /// How the run ended, kept in the database so `status` says it in any process, after any restart.
    private func recordLastSync(ok: Bool, sent: Int, error: String?) {
        let record = LastSync(at: Date().timeIntervalSince1970, ok: ok, sent: sent, error: error)
        try? store?.setValue(record.stored, for: "last_sync")
    }

    private func syncEnded() {
        syncing = false
        let ok = lastSync?.ok ?? false
        var json = #"{"status":\#(ok)"#
        if let error = lastSync?.error { json += #","error":\#(SensorStore.quoted(error))"# }
        host.publish(SensorEvents.syncCompletion, json: json + "}")
        onSyncEnded?()
        onSyncEnded = nil
    }

    /// Automatic runs while the sensor runs in the host: every `syncInterval` minutes, and after a failed run
    /// `min(30 min, syncInterval × 2^failures)` with ±20 % jitter; a success resets the wait.
    /// A run is skipped while the sensor is stopped, offline (`onlyWhenOnline`) or, with
    /// `batteryChargingOnly`, on battery; the timer goes on.
    func scheduleAutomaticSync() {
        guard configuration.canSync, !automaticSyncScheduled else { return }
        automaticSyncScheduled = true
        let interval = configuration.syncInterval * 60
        let wait =
            failures == 0 ? interval : min(1_800, interval * pow(2, Double(failures))) * Double.random(in: 0.8...1.2)
        host.addTimer(milliseconds: UInt32(max(50, wait * 1000)), repeating: false) { [weak self] in
            guard let self else { return }
            automaticSyncScheduled = false
            let stopped = (try? store?.value("state")) == "stopped"
            if stopped || skipReason() != nil {
                if !stopped, let reason = skipReason() { host.log(.info, "automatic sync skipped: \(reason)") }
                scheduleAutomaticSync()
                return
            }
            onSyncEnded = { [weak self] in
                guard let self else { return }
                failures = lastSync?.ok == true ? 0 : failures + 1
                scheduleAutomaticSync()
            }
            startSync()
        }
    }
}
