import Foundation
import PluginKit

/// What read-text tells the low-vision view (docs/view.md): the sentences of the page being read and which one
/// is being read, as events named `assist.read-text.view.…`, which live pages see and the event journal never
/// keeps (what a person reads is not written to disk).
extension ReadText {
    /// The most sentences one page event carries (a document's page rarely has more).
    static let viewSentences = 400

    /// Tells the view the sentence now being read: its number, and the sentences of its page when those changed
    /// since the last time.
    func showOnView(reading index: Int) {
        guard let navigator, index < navigator.items.count else { return }
        let page = navigator.items[index].page
        let onPage = navigator.items.enumerated().filter { $0.element.page == page }
        let first = onPage.first?.offset ?? 0
        let sentences = onPage.prefix(Self.viewSentences).map(\.element.text)
        if sentences != viewShown.sentences || page != viewShown.page {
            viewShown = (page, sentences)
            publishView(
                "assist.read-text.view.page",
                ["page": page, "pages": navigator.pages, "sentences": sentences, "complete": navigator.isComplete])
        }
        publishView("assist.read-text.view.sentence", ["index": index - first, "page": page])
    }

    private func publishView(_ name: String, _ object: [String: Any]) {
        guard let data = try? JSONSerialization.data(withJSONObject: object) else { return }
        host.publish(name, json: String(decoding: data, as: UTF8.self))
    }
}
