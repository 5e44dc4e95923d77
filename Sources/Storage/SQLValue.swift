import Foundation

/// A value bound to, or read from, SQL.
package enum SQLValue: Equatable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}
