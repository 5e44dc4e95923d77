import Foundation

/// Reads an ELF header without loading the file, so bad libraries are refused before `dlopen`.
package enum ELFInspector {
    /// What the header says.
    package struct Header: Equatable, Sendable {
        package var is64Bit: Bool
        package var littleEndian: Bool
        package var machine: UInt16
        package var type: UInt16
    }

    /// Reads the header of `path`, or says in a few words why it is not a shared object.
    package static func header(of path: String, requireSharedObject: Bool = true) -> Result<Header, ELFProblem> {
        guard let handle = FileHandle(forReadingAtPath: path) else { return .failure(ELFProblem("it cannot be read")) }
        defer { try? handle.close() }
        let bytes = [UInt8]((try? handle.read(upToCount: 64)) ?? Data())
        return parse(bytes, requireSharedObject: requireSharedObject)
    }

    /// Parses the first 64 bytes of a file.
    package static func parse(_ bytes: [UInt8], requireSharedObject: Bool = true) -> Result<Header, ELFProblem> {
        guard bytes.count >= 4 else { return .failure(ELFProblem("file too short")) }
        guard bytes[0] == 0x7F, bytes[1] == 0x45, bytes[2] == 0x4C, bytes[3] == 0x46 else {
            return .failure(ELFProblem("not an ELF file"))
        }
        guard bytes.count >= 20 else { return .failure(ELFProblem("file too short")) }
        let is64 = bytes[4] == 2
        let little = bytes[5] == 1
        func half(_ offset: Int) -> UInt16 {
            little
                ? UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
                : UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
        }
        let header = Header(is64Bit: is64, littleEndian: little, machine: half(18), type: half(16))
        guard header.type == 3 || !requireSharedObject else {
            return .failure(ELFProblem("not a shared object (ELF type \(header.type))"))
        }
        return .success(header)
    }

    /// The header of the running host (an executable, PIE or not), read from /proc/self/exe.
    package static let host: Header? = {
        if case .success(let header) = header(of: "/proc/self/exe", requireSharedObject: false) { return header }
        return nil
    }()

    /// Why a file is not a loadable shared object, in a few words.
    package struct ELFProblem: Error, Equatable {
        package var text: String
        init(_ text: String) { self.text = text }
    }

    /// A readable name for an `e_machine` value.
    package static func machineName(_ machine: UInt16) -> String {
        switch machine {
        case 3: return "i386"
        case 40: return "arm"
        case 62: return "x86_64"
        case 183: return "aarch64"
        case 243: return "riscv"
        default: return "machine \(machine)"
        }
    }
}
