import Foundation
import HostTesting
import Testing

/// Issue 72, item 5: the tour says what the keys do. Each key and word a tour sentence names, read from the tour
/// itself (a sentence that changes fails here first, so this test changes with it), is pressed on a terminal key
/// by key, and does what the sentence says. find-object's `t` (tour.6) is pressed in FindObjectCLITests'
/// `theSoundTourSaysAndPlaysEachPattern`.
@Suite("the tour's keys")
struct TourKeysTests {
    /// The English tour, sentence by sentence (tour.1 …).
    static func tour() throws -> [String] {
        let url = BuildProducts.packageRoot.appendingPathComponent("share/assist/host/phrases.en.json")
        let phrases = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: String] ?? [:]
        return (1...20).compactMap { phrases["tour.\($0)"] }
    }

    @Test func everyKeyTheTourNamesDoesWhatItSays() throws {
        let tour = try Self.tour()
        try #require(tour.count == 9, "\(tour)")
        // The claims, as the tour makes them.
        #expect(tour[1].contains("Press a feature's number, or type the first letters of its name and press Enter"))
        #expect(tour[1].contains("the arrows move through the list and Enter chooses"))
        #expect(tour[2].contains("press F4, the voice key, then speak"))
        #expect(
            tour[3]
                == "In every feature, h or help says its keys and words, r repeats the last sentence, Space pauses and "
                + "resumes, and Escape or stop ends it.")

        let data = try TemporaryDirectory("assist-tour-keys")
        let screen = try PseudoTerminal(
            BuildProducts.assist,
            [
                "shell", "--no-speech", "--data-dir", data.url.path, "--camera",
                "image:\(BuildProducts.packageRoot.path)/share/assist/camera/sample.jpg",
            ], environment: ["XDG_CONFIG_HOME": data.url.path])
        #expect(screen.waitFor("Choose a feature."), "\(screen.text)")

        // tour.2: the first letters of a name, and Enter.
        screen.typeSlowly("rea\r")
        #expect(screen.allowFirstUse("Read text"), "\(screen.text)")
        #expect(screen.waitFor("End of the text.", timeout: 60), "\(screen.text)")
        // tour.4: r repeats the last sentence.
        screen.type("r")
        #expect(screen.waitFor("End of the text.", count: 2), "r: \(screen.text)")
        // h, or help typed after the slash: the feature's keys and words.
        screen.type("h")
        #expect(screen.waitFor("Commands for Read text:"), "h: \(screen.text)")
        #expect(screen.waitFor(#"Stop: Escape, q, or "stop""#), "\(screen.text)")
        screen.typeSlowly("/help\r")
        #expect(screen.waitFor("Commands for Read text:", count: 2), "help: \(screen.text)")
        // Space pauses and resumes.
        screen.type(" ")
        #expect(screen.waitFor("Paused."), "Space: \(screen.text)")
        screen.type(" ")
        #expect(screen.waitFor("Resumed."), "Space again: \(screen.text)")
        // Escape ends it.
        screen.type([0x1B])
        #expect(screen.waitFor("Read text stopped."), "Escape: \(screen.text)")
        #expect(screen.waitFor("Choose a feature.", count: 2), "\(screen.text)")

        // tour.2: a feature's number (as the menu lists it); tour.4: stop ends it.
        let light = try #require(screen.number(of: "Light"), "\(screen.lines)")
        screen.typeSlowly(light)
        #expect(screen.allowFirstUse("Light"), "the number \(light): \(screen.text)")
        #expect(screen.waitFor("Light meter."), "\(screen.text)")
        screen.type("h")
        #expect(screen.waitFor("Commands for Light:"), "h in Light: \(screen.text)")
        screen.typeSlowly("/stop\r")
        #expect(screen.waitFor("Light stopped."), "stop: \(screen.text)")
        #expect(screen.waitFor("Choose a feature.", count: 3), "\(screen.text)")

        // tour.2: the arrows move through the list, and Enter chooses.
        let down: [UInt8] = [0x1B, 0x5B, 0x42]
        let up: [UInt8] = [0x1B, 0x5B, 0x41]
        screen.type(down)
        #expect(screen.waitFor("Barcode, 1 of"), "Down: \(screen.text)")
        screen.type(down)
        #expect(screen.waitFor("Collect videos, 2 of"), "Down again: \(screen.text)")
        screen.type(up)
        #expect(screen.waitFor("Barcode, 1 of", count: 2), "Up: \(screen.text)")
        screen.type("\r")
        #expect(screen.allowFirstUse("Barcode"), "Enter: \(screen.text)")
        #expect(screen.waitFor("Barcode reader."), "\(screen.text)")
        screen.type("h")
        #expect(screen.waitFor("Commands for Barcode:"), "h in Barcode: \(screen.text)")
        screen.type([0x1B])
        #expect(screen.waitFor("Barcode stopped."), "Escape in Barcode: \(screen.text)")
        #expect(screen.waitFor("Choose a feature.", count: 4), "\(screen.text)")

        // tour.3: F4 is the voice key: it listens (here, without a microphone, it says in words that it cannot).
        screen.type([0x1B, 0x4F, 0x53])
        #expect(screen.waitFor("Voice commands cannot hear"), "F4: \(screen.text)")
        #expect(!screen.text.contains("Unknown"), "\(screen.text)")
        kill(screen.processIdentifier, SIGHUP)
        #expect(screen.waitForExit() == 0, "\(screen.text)")
    }
}
