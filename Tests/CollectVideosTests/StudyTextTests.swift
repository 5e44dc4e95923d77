import CollectVideosCore
import Foundation
import HostTesting
import Testing

/// The study texts' rules (spec §3.4–3.7) on made-up texts and on the shipped ones.
@Suite("collect-videos study texts")
struct StudyTextTests {
    @Test func metadataLinesContinueAndEmptyValuesAreDropped() {
        let text = StudyText(
            markdown:
                "---\nConsent10: Last one\nConsent2: Second,\ncontinued here\nEmpty:   \nConsent1: First\n---\n# Body\n"
        )
        #expect(text.statements == ["First", "Second, continued here", "Last one"])
        #expect(text.metadata.count == 3)
        #expect(text.pieces.first?.text == "Body")
        // No block: the whole text is the body.
        #expect(StudyText(markdown: "# Only\n\n---\nnot: metadata\n---").metadata.isEmpty)
    }

    @Test func naturalOrderComparesDigitRunsAsNumbers() {
        let keys = ["Consent10", "Consent2", "Consent1", "Consent02b", "consent3", "A"]
        #expect(
            keys.sorted(by: StudyText.naturalOrder) == [
                "A", "Consent1", "Consent2", "Consent02b", "Consent10", "consent3",
            ])
    }

    @Test func anchorsFollowTheRule() {
        #expect(
            StudyText.anchor("#### Training videos for small/medium things") == "training-videos-for-smallmedium-things"
        )
        #expect(StudyText.anchor("## What  the -- study is for? ##") == "what-the-study-is-for")
        #expect(StudyText.anchor("# Ünïcode wörds 2") == "ünïcode-wörds-2")
    }

    @Test func theOutlineReadsHeadingsParagraphsAndLinks() {
        let text = StudyText(
            markdown: """
                # Title

                A paragraph with **bold** and a [jump](#how-to-withdraw) and [a site](https://example.org).

                - one item
                - two *items*

                ## How to withdraw

                Contact us.
                """)
        let kinds = text.pieces.map { piece -> String in
            if case .heading(let level, let anchor) = piece.kind { return "h\(level):\(anchor)" }
            return "p"
        }
        #expect(kinds == ["h1:title", "p", "p", "p", "h2:how-to-withdraw", "p"], "\(text.pieces)")
        #expect(text.pieces[1].text == "A paragraph with bold and a jump and a site (https://example.org).")
        #expect(text.pieces[1].jumps == ["how-to-withdraw"])
        #expect(text.pieces[3].text == "two items")
        #expect(text.html.contains(#"<h2 id="how-to-withdraw">How to withdraw</h2>"#), "\(text.html)")
    }

    /// Ink 0.6.0 takes exponential time in unmatched `[` (the fuzzer's find): they reach it as entities, links
    /// still work, and the outline shows the brackets.
    @Test func strayBracketsAreQuickAndStillShown() {
        let started = Date()
        let text = StudyText(
            markdown: "# Notes\n\n" + String(repeating: "[", count: 40) + " see [the sheet](#notes) [not a link]\n")
        #expect(Date().timeIntervalSince(started) < 2)
        #expect(text.pieces.last?.text == String(repeating: "[", count: 40) + " see the sheet [not a link]")
        #expect(text.pieces.last?.jumps == ["notes"])
        #expect(text.html.contains(##"<a href="#notes">the sheet</a>"##), "\(text.html)")
    }

    @Test func theSavedPageIsCompleteAndEscapesStatements() {
        let page = StudyText(markdown: "---\nC1: Fish & <chips>\n---\n# Sheet\n").page(title: "ORBIT information")
        #expect(page.hasPrefix("<!DOCTYPE html>"))
        #expect(page.contains("<title>ORBIT information</title>"))
        #expect(page.contains("<li>Fish &amp; &lt;chips&gt;</li>"))
        #expect(page.contains(#"<h1 id="sheet">Sheet</h1>"#))
    }

    @Test func theShippedTextsParseAndTheirLinksLand() throws {
        let folder = BuildProducts.packageRoot.appendingPathComponent("Plugins/CollectVideos/share")
        for name in ["consent", "information", "introduction", "recording-help"] {
            let text = StudyText(
                markdown: try String(contentsOf: folder.appendingPathComponent("\(name).md"), encoding: .utf8))
            #expect(!text.pieces.isEmpty, "\(name)")
            let anchors = Set(
                text.pieces.compactMap { piece -> String? in
                    if case .heading(_, let anchor) = piece.kind { return anchor }
                    return nil
                })
            for jump in text.pieces.flatMap(\.jumps) where name != "consent" {
                #expect(anchors.contains(jump), "\(name): #\(jump) has no heading")
            }
        }
        let consent = StudyText(
            markdown: try String(contentsOf: folder.appendingPathComponent("consent.md"), encoding: .utf8))
        #expect(consent.statements.count == 6)
        #expect(consent.statements.last == "I agree to take part in this study.", "Consent10 comes last")
    }
}
