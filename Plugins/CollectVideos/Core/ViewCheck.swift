import Foundation

/// The camera check while filming (issue 36, spec §9): what a frame says about the view, from 96 × 96 luma
/// samples. Measured on the photos Debian's darknet package ships, squared and scaled to 540 and 1080: their
/// mean luma is 82 to 201, their spread 37 to 56, the Laplacian-to-spread ratio 1.3 to 3.2 sharp, 0.1 to 0.45
/// under a Gaussian blur of 1.5 % of the width, and the centre's spread at least 25.
public struct ViewLook: Equatable, Sendable {
    /// Mean luma, 0 to 255.
    public var mean: Double
    /// Standard deviation of the luma samples.
    public var spread: Double
    /// Root mean square of the samples' Laplacian over their spread: how much of the contrast is fine detail.
    public var detail: Double
    /// Standard deviation of the luma samples in the middle third.
    public var centreSpread: Double

    /// What is wrong with the view, worst first; nil when nothing is.
    public var problem: ViewProblem? {
        if mean < 50 && spread < 6 { return .covered }
        if mean < 50 { return .dark }
        if centreSpread < 5 { return .emptyCentre }
        if spread >= 12 && detail < 0.6 { return .blurred }
        return nil
    }

    static let samples = 96

    /// The look of a BGR24 frame; nil for one too small to sample.
    public static func of(bgr pixels: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int) -> ViewLook? {
        let n = samples
        guard width >= n, height >= n, stride >= width * 3 else { return nil }
        var luma = [Double](repeating: 0, count: n * n)
        for row in 0..<n {
            let line = pixels + (row * (height - 1) / (n - 1)) * stride
            for column in 0..<n {
                let pixel = line + (column * (width - 1) / (n - 1)) * 3
                luma[row * n + column] = (29 * Double(pixel[0]) + 150 * Double(pixel[1]) + 77 * Double(pixel[2])) / 256
            }
        }
        let (mean, spread) = meanAndSpread(luma[...])
        var energy = 0.0
        for row in 1..<(n - 1) {
            for column in 1..<(n - 1) {
                let i = row * n + column
                let laplacian = 4 * luma[i] - luma[i - 1] - luma[i + 1] - luma[i - n] - luma[i + n]
                energy += laplacian * laplacian
            }
        }
        let detail = (energy / Double((n - 2) * (n - 2))).squareRoot() / max(spread, 1)
        let third = n / 3
        var centre: [Double] = []
        centre.reserveCapacity(third * third)
        for row in third..<(2 * third) { centre += luma[(row * n + third)..<(row * n + 2 * third)] }
        return ViewLook(mean: mean, spread: spread, detail: detail, centreSpread: meanAndSpread(centre[...]).spread)
    }

    private static func meanAndSpread(_ values: ArraySlice<Double>) -> (mean: Double, spread: Double) {
        let mean = values.reduce(0, +) / Double(max(values.count, 1))
        let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(max(values.count, 1))
        return (mean, variance.squareRoot())
    }
}

public enum ViewProblem: String, Sendable, CaseIterable {
    case covered, dark, emptyCentre, blurred

    /// Its phrase's name (`view-<key>`), said at once.
    public var key: String { self == .emptyCentre ? "empty-centre" : rawValue }
}

/// When a problem is said: once it has lasted 4 checks in a row (checks come every 5th frame, about 0.7 s at
/// 30 frames a second), not again until the view has been fine for 6 checks, and never two within 3 s.
public struct ViewWatch: Sendable {
    private var current: ViewProblem?
    private var run = 0
    private var fine = 0
    private var said: Set<ViewProblem> = []
    private var lastSaid: Double = -.infinity

    public init() {}

    /// The problem to say now, if any, after a check at `seconds`.
    public mutating func check(_ problem: ViewProblem?, at seconds: Double) -> ViewProblem? {
        guard let problem else {
            fine += 1
            if fine >= 6 { said.removeAll() }
            current = nil
            run = 0
            return nil
        }
        fine = 0
        run = problem == current ? run + 1 : 1
        current = problem
        guard run >= 4, !said.contains(problem), seconds - lastSaid >= 3 else { return nil }
        said.insert(problem)
        lastSaid = seconds
        return problem
    }
}
