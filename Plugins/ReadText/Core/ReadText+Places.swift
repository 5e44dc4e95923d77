import Foundation
import PluginKit

/// A document opened again goes on where reading stopped (DocumentPlaces). [main]
extension ReadText {
    /// A document opened again where reading stopped partway: "letter.pdf: you stopped at page 3 of 12. Go on
    /// from there?" Yes goes on from that sentence once its page is read; no (or Escape) reads from the start.
    /// Nothing is read while the question waits. [main]
    func askToGoOn(_ place: DocumentPlaces.Place, name: String) {
        navigator?.hold()
        let values = ["name": name, "p": String(place.page), "n": String(place.pages)]
        host.confirm(phrases.text("resume-ask", values), defaultYes: false) { [self] yes in
            guard !stopped else { return }
            // No: the first page is read next (the page reading stopped at was read first, in case of yes).
            if !yes { pageOrder?.want(0) }
            navigator?.release(at: yes ? (place.page, place.item) : nil)
        }
    }

    /// Keeps where reading is in the open document (at most every 2 s, and `now` when read-text stops), so
    /// that opened again it can go on from there; at its first sentence or once read to its end, there is
    /// nothing to keep.
    func keepPlace(now: Bool = false) {
        guard let places, let documentKey, let navigator, navigator.state != .ended, navigator.state != .idle else {
            return
        }
        let time = ProcessInfo.processInfo.systemUptime
        guard now || time - placeKeptAt >= 2 else { return }
        let position = navigator.position
        guard position.pages > 0, position.page > 0 else { return }
        placeKeptAt = time
        if position.page == 1, position.itemOnPage <= 1 {
            try? places.forget(documentKey)
        } else {
            try? places.keep(
                .init(page: position.page, item: position.itemOnPage, pages: position.pages), of: documentKey)
        }
    }
}
