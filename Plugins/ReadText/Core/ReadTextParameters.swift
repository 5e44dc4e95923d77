/// Every tuning number of read-text, with its unit and origin (read-text.md).
public enum ReadTextParameters {
    /// Stability: mean absolute difference of 80×60 luma thumbnails (0…255) at or below which two frames match.
    public static let stableMAD = 2.5
    /// Stability: consecutive matching pairs needed (about 250 ms at 16 fps).
    public static let stableFrames = 4
    /// Stability: the shortest wait after start or re-arm, in seconds.
    public static let stableMinimumSeconds = 0.3
    /// Early start (issue 37): matching pairs after which a settling picture is recognised while the stability
    /// wait goes on; what it says is held until the wait ends on the same still picture.
    public static let earlyFrames = 2
    /// Sharpness: the grid is 60×60 cells.
    public static let gridSize = 60
    /// Sharpness: pictures are downscaled so the longest side is at most this many pixels.
    public static let sharpnessMaxSide = 1920
    /// Sharpness: a cell is sharp when the variance of |Laplacian| is at least this (blur ≤ 0.25).
    public static let sharpVariance = 192.0
    /// Selection: the first requirement, half the grid (3600 / 2).
    public static let initialRequirement = 1800.0
    /// Selection: how many candidates wait besides the new one.
    public static let candidatePool = 3
    /// Selection: the requirement shrinks by this factor after each miss.
    public static let requirementDecay = 1.5
    /// Veto: the median line confidence (0…100) below which a result is discarded.
    public static let vetoConfidence = 40.0
    /// OCR: lines shorter than this fraction of the frame height are dropped.
    public static let minimumLineHeight = 0.012
    /// OCR: a line at least this many pixels tall is kept, whatever share of a large picture it is (a letter's
    /// 10-point text on an A4 page scanned at 300 dpi is 42 pixels, 0.012 of the page's height).
    public static let leastLinePixels = 14
    /// The least height of a line kept, as a share of a picture `height` pixels tall: `minimumLineHeight`, or
    /// less on a picture so large that `leastLinePixels` is less (taller than 1,166 pixels: a scan, a photo
    /// taken with a phone's camera; a camera's frame of 1080 lines or fewer keeps the share).
    public static func leastLineHeight(pictureHeight height: Int) -> Double {
        min(minimumLineHeight, Double(leastLinePixels) / Double(max(height, 1)))
    }
    /// Cluster: page mode runs only with at least this many observations.
    public static let clusterMinimumObservations = 6
    /// Sentences: a vertical gap above this (normalised) forces a break.
    public static let sentenceGap = 0.02
    /// Speech: the rate when `speech.rate` is not set, in words per minute (espeak-ng's default).
    public static let normalRate = 175
    /// Speech: the rates faster and slower move within (`speech.rate`'s range), a step at a time.
    public static let rates = 80...450
    public static let rateStep = 25
    /// Speech: how much faster the speed toggle reads than the starting rate (the original's 0.4 and 0.6
    /// became 175 and 260 words a minute).
    public static let fastStep = 85
    /// Still pictures: below this share of sharp cells, warn that the photo looks blurry.
    public static let blurryShare = 0.10
}
