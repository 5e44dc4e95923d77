import Foundation
import ObjectDetection
import PluginKit

/// Recognition (spec §3.16–3.18), off by default: pictures recorded while it is on are owed labels, which a
/// worker of its own works through, so watching never waits for the detector. What is owed survives a restart
/// (`seen_files.recognition_done`); a missing model leaves it owed until the next start.
extension PhotoSensor {
    /// Made when `performRecognition` is on; the detector inside opens on the first picture.
    func makeRecognizer() -> Recognizer? {
        guard configuration.performRecognition else { return nil }
        let share = host.shareDirectory
        let data = host.dataDirectory
        return Recognizer(
            minConfidence: configuration.recognitionMinConfidence, imageSize: configuration.recognitionImageSize
        ) { () throws(DetectionError) -> String in
            let cache = data.map { URL(fileURLWithPath: $0).appendingPathComponent("model-checked.txt") }
            return try ModelFiles.locate(share: share, data: data, cache: cache)
        }
    }

    /// Works through what is owed, on the recognition worker; `done` runs on [main] afterwards.
    func recognizeOwed(then done: (() -> Void)? = nil) {
        guard let recognizer, let store else {
            done.map { host.onMain($0) }
            return
        }
        let target = WeakSensor(self)
        recognition.run { [host] in
            target.sensor?.recognizeOwed(with: recognizer, store: store)
            if let done { host.onMain(done) }
        }
    }

    /// On the recognition worker.
    private func recognizeOwed(with recognizer: Recognizer, store: SensorStore) {
        guard let owed = try? store.owedRecognition(), !owed.isEmpty else { return }
        let deviceID = (try? store.deviceID()) ?? ""
        for file in owed {
            let format = Self.format(of: file.path)
            var labels: [Recognizer.Label] = []
            if let format {
                do {
                    labels = try recognizer.labels(file.path, format: format)
                } catch .unavailable(let why) {
                    setRecognitionProblem(why)
                    host.log(
                        .warning,
                        "recognition unavailable: \(why.message); \(owed.count) pictures wait for the next start")
                    return
                } catch {
                    host.log(.info, "\(file.path) cannot be decoded for recognition; it gets no labels")
                }
            }
            let label = (try? store.value("label")) ?? ""
            do {
                try store.recordRecognition(
                    of: file, labels: labels.map { ($0.name, $0.confidence) }, deviceId: deviceID, label: label,
                    at: Date())
            } catch {
                host.log(.error, "recognition of \(file.path) could not be saved: \(error.message)")
                return
            }
            setRecognitionProblem(nil)
            announceNewItem(kind: 1, labels: labels.map(\.name))
            if !labels.isEmpty {
                let names = labels.map { SensorStore.quoted($0.name) }.joined(separator: ",")
                let identifier = SensorStore.quoted("\(file.path)#sha256:\(file.sha256)")
                host.publish(
                    SensorEvents.recognized,
                    json: #"{\#(Self.source),"photoLocalIdentifier":\#(identifier),"labels":[\#(names)]}"#)
            }
        }
        recognizer.close()  // nothing owed: the network's memory goes back
    }

    /// A gone or unknown file gets no labels (and is marked done so it is not tried for ever).
    static func format(of path: String) -> MediaFormat? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        return MediaSniffer.sniff(Array((try? handle.read(upToCount: MediaSniffer.headerBytes)) ?? Data()))
    }

    /// Kept in the database too, so `status` in another process names it. Recognition worker.
    private func setRecognitionProblem(_ problem: Recognizer.Problem?) {
        let target = WeakSensor(self)
        let kept = problem.flatMap { try? JSONEncoder().encode($0) }.map { String(decoding: $0, as: UTF8.self) }
        if let store, (try? store.value("recognition_problem")) != kept {
            try? store.setValue(kept ?? "", for: "recognition_problem")
        }
        host.onMain { target.sensor?.recognitionProblem = problem }
    }
}
