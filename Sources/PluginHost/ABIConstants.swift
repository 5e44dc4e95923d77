import PluginAPI

// The header's integer macros, as typed constants.
let ASSIST_ABI_MAJOR_VALUE = Int32(ASSIST_ABI_MAJOR)
let ASSIST_ABI_MINOR_VALUE = Int32(ASSIST_ABI_MINOR)
