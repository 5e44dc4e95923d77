import Foundation

/// Videos of a real thing for teaching find-object, made with ffmpeg from the pictures `make test-photos`
/// gathers from Debian packages: the thing turning, nearing and receding, lit differently, in front of a
/// real background.
package enum ThingVideo {
    /// Where `make test-photos` puts its pictures.
    package static let photos = BuildProducts.packageRoot.appendingPathComponent(".build/test-photos").path

    /// A video at `output` of `thing` (a picture in the test photos) moving in front of `background`, or of the
    /// background alone; `seconds` long at 30 frames a second.
    package static func make(
        _ output: String, seconds: Double = 10, background: String = "brick.png", thing: String? = "logo.png"
    ) throws {
        var arguments = ["-v", "error", "-y", "-loop", "1", "-i", "\(photos)/\(background)"]
        var filter = "[0]scale=640:480,setsar=1"
        if let thing {
            arguments += ["-loop", "1", "-i", "\(photos)/\(thing)"]
            filter +=
                "[bg];[1]scale=w='200+50*sin(t*1.3)':h=-1:eval=frame,rotate=a='0.5*sin(2*PI*t/6)':c=none"
                + ":ow='hypot(iw,ih)':oh=ow,eq=brightness='0.08*sin(t)':eval=frame[fg];"
                + "[bg][fg]overlay=x='(W-w)/2+40*sin(t*0.7)':y='(H-h)/2+20*cos(t*0.9)':format=auto"
        }
        arguments += ["-filter_complex", filter + ",format=yuv420p", "-t", "\(seconds)", "-r", "30"]
        let made = try TestMedia.ffmpeg(arguments, output: output)
        guard made.status == 0 else { throw Failure(description: "ffmpeg: \(made.standardError)") }
    }

    /// ffmpeg could not make the video; what it said.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }
}
