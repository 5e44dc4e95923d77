import Foundation

/// Camera frames for find-object's tests: the real dog from Debian's darknet `dog.jpg` pasted onto another real
/// picture (`scream.jpg`) at known places, and what the run wrote to its events journal.
package enum DogScenes {
    package static let photos = "/usr/share/darknet/data"

    /// A picture tool that failed.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    /// Frames with the dog's centre at each x (nil: no dog), 800×600, in a new folder.
    package static func frames(_ positions: [Double?]) throws -> TemporaryDirectory {
        let folder = try TemporaryDirectory("assist-find-frames")
        for (index, position) in positions.enumerated() {
            var arguments = ["\(photos)/scream.jpg", "-resize", "800x600!"]
            if let position {
                arguments += [
                    "(", "\(photos)/dog.jpg", "-crop", "190x320+130+220", "+repage", ")", "-geometry",
                    "+\(Int(position * 800) - 95)+140", "-composite",
                ]
            }
            arguments.append(folder.path(String(format: "f%02d.png", index)).path)
            let made = try ProcessRunner.run("/usr/bin/convert", arguments)
            guard made.status == 0 else { throw Failure(description: made.standardError) }
        }
        return folder
    }

    /// `count` frames (ffmpeg's overlay, frame by frame) of the dog on scream.jpg at 800×600, its centre at `x`
    /// of the width, an ffmpeg expression of the frame number `n`; scaled to `size`; written to `pattern`.
    package static func movingDog(count: Int, x: String, to pattern: URL, size: String = "800:600") throws {
        let made = try ProcessRunner.run(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-loop", "1", "-i", "\(photos)/scream.jpg", "-loop", "1", "-i",
                "\(photos)/dog.jpg", "-filter_complex",
                "[0]scale=800:600,setsar=1[bg];[1]crop=190:320:130:220[dog];"
                    + "[bg][dog]overlay=x='(\(x))*800-95':y=140,scale=\(size)",
                "-frames:v", "\(count)", "-q:v", "3", pattern.path,
            ], timeoutSeconds: 120)
        guard made.status == 0 else { throw Failure(description: made.standardError) }
    }

    /// The events a run wrote to `events.jsonl` in the data folder `data`, in order.
    package static func events(_ data: TemporaryDirectory) throws -> [(name: String, payload: [String: Any])] {
        let text = try String(contentsOf: data.path("events.jsonl"), encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let name = object["name"] as? String
            else { return nil }
            return (name, object["payload"] as? [String: Any] ?? [:])
        }
    }
}
