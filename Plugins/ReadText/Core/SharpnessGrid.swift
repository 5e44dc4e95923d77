/// The 60×60 sharpness grid of a picture (read-text.md §3): the variance of the absolute 3×3 Laplacian of
/// luma in each cell, after downscaling by area so the longest side is at most 1920 px. Pure.
public struct SharpnessGrid: Equatable, Sendable {
    /// Row-major, 3600 cells; true when the cell is sharp.
    public let cells: [Bool]
    /// How many cells have something in them (luma standard deviation of at least 8): blank paper has none.
    public let contentCount: Int
    /// How many cells are sharp.
    public var sharpCount: Int { cells.reduce(0) { $0 + ($1 ? 1 : 0) } }

    public init(cells: [Bool], contentCount: Int = 0) {
        self.cells = cells
        self.contentCount = contentCount
    }

    /// Beyond the original: a photo looks blurry when under 10 % of the cells *with something in them* are
    /// sharp. (Counting all cells, as the original did, calls every sharp photo of a short note blurry.)
    public var looksBlurry: Bool {
        contentCount > 0 && Double(sharpCount) < ReadTextParameters.blurryShare * Double(contentCount)
    }

    /// The grid of an 8-bit luma picture.
    public static func compute(luma: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int) -> SharpnessGrid {
        let (pixels, w, h) = downscaled(luma: luma, width: width, height: height, stride: stride)
        let size = ReadTextParameters.gridSize
        let cellWidth = w / size
        let cellHeight = h / size
        guard cellWidth >= 1, cellHeight >= 1 else {
            return SharpnessGrid(cells: Array(repeating: false, count: size * size))
        }
        var cells = [Bool](repeating: false, count: size * size)
        var content = 0
        pixels.withUnsafeBufferPointer { buffer in
            for row in 0..<size {
                for column in 0..<size {
                    var sum = 0.0
                    var squares = 0.0
                    var lumaSum = 0.0
                    var lumaSquares = 0.0
                    var count = 0.0
                    for y in (row * cellHeight)..<((row + 1) * cellHeight) {
                        for x in (column * cellWidth)..<((column + 1) * cellWidth) {
                            let value = laplacian(buffer, x, y, w, h)
                            sum += value
                            squares += value * value
                            let luma = Double(buffer[y * w + x])
                            lumaSum += luma
                            lumaSquares += luma * luma
                            count += 1
                        }
                    }
                    let variance = count > 1 ? (squares - sum * sum / count) / (count - 1) : 0
                    cells[row * size + column] = variance >= ReadTextParameters.sharpVariance
                    let lumaVariance = count > 1 ? (lumaSquares - lumaSum * lumaSum / count) / (count - 1) : 0
                    if lumaVariance >= 64 { content += 1 }
                }
            }
        }
        return SharpnessGrid(cells: cells, contentCount: content)
    }

    /// |0 1 0 / 1 −4 1 / 0 1 0| at (x, y) on 0…255 values, edges repeated.
    private static func laplacian(_ p: UnsafeBufferPointer<UInt8>, _ x: Int, _ y: Int, _ w: Int, _ h: Int) -> Double {
        let centre = Int(p[y * w + x])
        let left = Int(p[y * w + max(0, x - 1)])
        let right = Int(p[y * w + min(w - 1, x + 1)])
        let up = Int(p[max(0, y - 1) * w + x])
        let down = Int(p[min(h - 1, y + 1) * w + x])
        return Double(abs(left + right + up + down - 4 * centre))
    }

    /// The picture, packed, shrunk by area averaging when its longest side exceeds 1920.
    static func downscaled(luma: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int) -> ([UInt8], Int, Int) {
        let longest = max(width, height)
        let limit = ReadTextParameters.sharpnessMaxSide
        guard longest > limit else {
            var packed = [UInt8](repeating: 0, count: width * height)
            for y in 0..<height {
                for x in 0..<width { packed[y * width + x] = luma[y * stride + x] }
            }
            return (packed, width, height)
        }
        let scale = Double(limit) / Double(longest)
        let w = max(1, Int(Double(width) * scale))
        let h = max(1, Int(Double(height) * scale))
        var out = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h {
            let top = y * height / h
            let bottom = max(top + 1, (y + 1) * height / h)
            for x in 0..<w {
                let left = x * width / w
                let right = max(left + 1, (x + 1) * width / w)
                var sum = 0
                for sy in top..<bottom {
                    for sx in left..<right { sum += Int(luma[sy * stride + sx]) }
                }
                out[y * w + x] = UInt8(sum / ((bottom - top) * (right - left)))
            }
        }
        return (out, w, h)
    }
}
