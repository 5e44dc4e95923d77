import Foundation
import HostTesting
import Testing

/// read-text on a page photographed wrongly (issue 14), as a process: the sentence it says of the picture goes
/// to the process's standard error under `--transcript`. The photographed pages read well are tested in process
/// (`ReadTextPhotoInProcessTests`).
@Suite("read-text on badly taken photos")
struct ReadTextPhotoTests {
    struct BadPhoto: CustomTestStringConvertible, Sendable {
        var damage: [PagePhotographer.Damage]
        var says: String
        var reads: Bool
        var testDescription: String { damage.map(\.description).joined(separator: ", ") }
    }

    static let badPhotos: [BadPhoto] = [
        BadPhoto(
            damage: [.rotation(3), .quarterTurns(2), .jpeg(60)],
            says: "The page is upside down; reading it the right way up.", reads: true),
        BadPhoto(
            damage: [.perspective(0.08), .quarterTurns(1)],
            says: "The page is on its side; reading it the right way up.", reads: true),
        BadPhoto(
            damage: [.rotation(2), .partlyOutside],
            says: "Part of the page is outside the picture; move the camera back.", reads: false),
    ]

    /// A page photographed wrongly gets one clear sentence, and is read when it can be.
    @Test(arguments: badPhotos)
    func aBadlyTakenPageGetsOneClearSentence(_ example: BadPhoto) throws {
        let folder = try TemporaryDirectory("assist-bad-photo")
        let photo = folder.path("photo.jpg")
        try PagePhotographer.photograph(PagePhotographer.english, damage: example.damage, to: photo, work: folder.url)
        let result = try ProcessRunner.run(
            BuildProducts.assist,
            ["run", "--no-speech", "read-text", "--image", photo.path, "--exit-at-end", "--transcript"],
            environment: ["ASSIST_DATA_DIR": folder.path("data").path, "OMP_THREAD_LIMIT": "1"])
        #expect(result.status == 0, "\(result.standardError)")
        let said = result.standardError.split(separator: "\n").filter { $0 == example.says }
        #expect(said.count == 1, "stderr: \(result.standardError)")
        if example.reads {
            let transcript = result.lines.joined(separator: " ")
            let errorRate = PageRenderer.characterErrorRate(transcript, reference: PagePhotographer.english.text)
            #expect(errorRate <= 0.05, "character error rate \(errorRate): \(transcript)")
        }
    }
}
