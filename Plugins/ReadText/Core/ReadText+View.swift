import CMediaInfo
import Foundation
import OCR
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
        let items = navigator.items
        let page = items[index].page
        // A page's items are together (in page order): its first is found from the one being read, so a
        // sentence costs the page's length, not the document's.
        var first = index
        while first > 0 && items[first - 1].page == page { first -= 1 }
        let onPage = items[first...].prefix { $0.page == page }.prefix(Self.viewSentences)
        let sentences = onPage.map(\.text)
        let picture = page == 0 ? viewPicture : 0
        if sentences != viewShown.sentences || page != viewShown.page || picture != viewShown.picture {
            viewShown = (page, picture, sentences)
            var object: [String: Any] = [
                "page": page, "pages": navigator.pages, "sentences": sentences, "complete": navigator.isComplete,
            ]
            if picture > 0 {
                object["picture"] = picture
                object["lines"] = onPage.map { $0.lines.map(Self.topLeft) }
            }
            publishView("assist.read-text.view.page", object)
        }
        publishView("assist.read-text.view.sentence", ["index": index - first, "page": page])
    }

    /// The longer side of the picture the view is given, in pixels, and its JPEG quality: enough to see where
    /// the lines are and to read large print, at about 100 kB.
    static let viewPictureSide = 1280
    static let viewPictureQuality = 80

    /// Numbers the picture whose items are about to be posted and gives it to the view (as a JPEG, its longer
    /// side at most `viewPictureSide`, scaled as recognition scales and encoded by libjpeg-turbo as photo-sensor's
    /// thumbnails are), so that the page can outline each sentence's lines on it. The number goes
    /// to the main loop first, with the items. Worker thread, once the first items are posted: the picture costs
    /// the first words nothing.
    func numberPictureForView() -> Int {
        picturesNumbered += 1
        let number = picturesNumbered
        post { [self] in viewPicture = number }
        return number
    }

    func showPictureOnView(_ picture: GrayPicture, number: Int) {
        // An early read the camera moved away from is never read: its picture is not shown either.
        guard output?.isDropped != true else { return }
        let factor = min(1, Double(Self.viewPictureSide) / Double(max(picture.width, picture.height)))
        let small =
            factor < 1
            ? PageGeometry.scaled(
                gray: picture.pixels, width: picture.width, height: picture.height, stride: picture.stride,
                factor: factor)
            : nil
        var data: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let encoded = { (pixels: UnsafeRawPointer, width: Int, height: Int, stride: Int) in
            assist_media_encode_jpeg(
                pixels.assumingMemoryBound(to: UInt8.self), Int32(width), Int32(height), Int32(stride), 1,
                Int32(Self.viewPictureQuality), &data, &size) == ASSIST_MEDIA_INFO_OK
        }
        let made =
            small?.withPicture { encoded($0.pixels, $0.width, $0.height, $0.stride) }
            ?? encoded(picture.pixels, picture.width, picture.height, picture.stride)
        guard made, let data else { return }
        defer { free(data) }
        let (width, height) = small.map { ($0.width, $0.height) } ?? (picture.width, picture.height)
        let jpeg = Data(bytes: data, count: Int(size)).base64EncodedString()
        publishView(
            "assist.read-text.view.picture", ["picture": number, "width": width, "height": height, "jpeg": jpeg])
    }

    /// A line's box as the page draws it: left, top, width and height, fractions of the picture from its top-left
    /// corner, to four places.
    static func topLeft(_ box: NormalizedBox) -> [Double] {
        [box.minX, 1 - box.maxY, box.width, box.height].map { ($0 * 10_000).rounded() / 10_000 }
    }

    private func publishView(_ name: String, _ object: [String: Any]) {
        guard let data = try? JSONSerialization.data(withJSONObject: object) else { return }
        host.publish(name, json: String(decoding: data, as: UTF8.self))
    }
}
