// barcode figures (issue 75), printed as plain lines. On the set bench/barcode_set.py makes (200 pictures of
// codes pasted into photographs, turned up to 30°, blurred, JPEG 60, dim or under glare; 100 without a code):
//  - Assist: barcode's scanner (zbar's C API, the kinds barcode reads) on each 1280 × 720 picture, already
//    decoded and grey as a camera frame is: read rate, false codes, and time per frame (median, p95);
//  - baseline: `zbarimg` (Debian's zbar-tools) on the same files, whole process per file.
// Usage: BarcodeBench FOLDER (made by bench/barcode_set.py).
import BarcodeCore
import Foundation
import HostTesting
import OCR

let folder = URL(fileURLWithPath: CommandLine.arguments.dropFirst().first ?? ".build/barcode-set")
let truth = try String(contentsOf: folder.appendingPathComponent("truth.tsv"), encoding: .utf8)
    .split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
let scanner = CodeScanner()
var read = 0
var readPlain = 0
var withCode = 0
var falseCodes = 0
var wrong: [String] = []
var times: [Double] = []
var smoothedTimes: [Double] = []
/// A code found is the one made: the same text, or the same product (an EAN-13 that begins with 0 is a UPC-A,
/// which zbar reports as twelve digits).
func matches(_ code: FoundCode, _ truth: String) -> Bool {
    code.text == truth || CodeText.key(code) == "gtin:" + truth
}
for row in truth where row.count == 2 {
    let photo = try TesseractEngine.loadGray(folder.appendingPathComponent(row[0]))
    var codes: [FoundCode] = []
    var smoothedCodes: [FoundCode] = []
    for _ in 0..<3 {
        let start = DispatchTime.now().uptimeNanoseconds
        codes = scanner.scan(grey: photo.pixels, width: photo.width, height: photo.height, stride: photo.width)
        times.append(BenchFigures.milliseconds(start, DispatchTime.now().uptimeNanoseconds))
        let second = DispatchTime.now().uptimeNanoseconds
        smoothedCodes = scanner.scan(
            grey: photo.pixels, width: photo.width, height: photo.height, stride: photo.width, smoothed: true)
        smoothedTimes.append(BenchFigures.milliseconds(second, DispatchTime.now().uptimeNanoseconds))
    }
    let plain = codes.filter(CodeText.checkDigitHolds)
    let both = (codes.isEmpty ? smoothedCodes : codes).filter(CodeText.checkDigitHolds)
    if row[1].isEmpty {
        falseCodes += both.count
    } else {
        withCode += 1
        if plain.contains(where: { matches($0, row[1]) }) { readPlain += 1 }
        if both.contains(where: { matches($0, row[1]) }) { read += 1 } else { wrong.append(row[0]) }
    }
}
// The baseline: zbarimg on the same files.
var baselineRead = 0
var baselineFalse = 0
var baselineTimes: [Double] = []
for row in truth where row.count == 2 {
    let start = DispatchTime.now().uptimeNanoseconds
    // The same kinds as barcode reads, nothing else.
    let kinds = ["ean13", "ean8", "upca", "upce", "code128", "qrcode"].map { "-S\($0).enable" }
    let result = try ProcessRunner.run(
        "/usr/bin/zbarimg", ["-q", "--raw", "-Sdisable"] + kinds + [folder.appendingPathComponent(row[0]).path])
    baselineTimes.append(BenchFigures.milliseconds(start, DispatchTime.now().uptimeNanoseconds))
    let lines = result.standardOutput.split(separator: "\n").map(String.init)
    if row[1].isEmpty {
        baselineFalse += lines.count
    } else if lines.contains(where: { $0 == row[1] || "0" + $0 == row[1] }) {
        baselineRead += 1
    }
}
let none = truth.filter { $0.count == 2 && $0[1].isEmpty }.count
print(
    String(
        format:
            "barcode: read %d of %d pictures with a code (%.1f %%; the plain pass alone %d), %d false codes in %d without",
        read, withCode, 100 * Double(read) / Double(max(1, withCode)), readPlain, falseCodes, none))
print(
    String(
        format:
            "barcode: scan of a 1280 x 720 frame: plain median %.1f ms, p95 %.1f ms; smoothed median %.1f ms, p95 %.1f ms (goal 30 ms)",
        BenchFigures.median(times), BenchFigures.percentile(times, 0.95), BenchFigures.median(smoothedTimes),
        BenchFigures.percentile(smoothedTimes, 0.95)))
print(
    String(
        format: "baseline zbarimg: read %d of %d (%.1f %%), %d false codes; %.1f ms a file (process, decode, scan)",
        baselineRead, withCode, 100 * Double(baselineRead) / Double(max(1, withCode)), baselineFalse,
        BenchFigures.median(baselineTimes)))
if !wrong.isEmpty { print("barcode: not read: \(wrong.joined(separator: " "))") }
