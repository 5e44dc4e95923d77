import PluginAPI

// Each versioned struct's last field in ABI 1.0: the smallest struct either side accepts. A field appended in
// 1.1 or later never changes these lines.

extension assist_host: VersionedStruct { public static let minimumSize = size(through: \Self.alloc) }
extension assist_plugin: VersionedStruct { public static let minimumSize = size(through: \Self.destroy) }
extension assist_entry: VersionedStruct { public static let minimumSize = size(through: \Self.create) }
extension assist_frame: VersionedStruct { public static let minimumSize = size(through: \Self.seq) }
extension assist_log_service: VersionedStruct { public static let minimumSize = size(through: \Self.log) }
extension assist_dialog_result: VersionedStruct { public static let minimumSize = size(through: \Self.request) }
extension assist_dialog_service: VersionedStruct { public static let minimumSize = size(through: \Self.cancel) }
extension assist_input_service: VersionedStruct {
    public static let minimumSize = size(through: \Self.dictation_available)
}
extension assist_session_service: VersionedStruct { public static let minimumSize = size(through: \Self.share_dir) }
extension assist_events_service: VersionedStruct { public static let minimumSize = size(through: \Self.unsubscribe) }
extension assist_settings_service: VersionedStruct { public static let minimumSize = size(through: \Self.set_bool) }
extension assist_clock_service: VersionedStruct { public static let minimumSize = size(through: \Self.timer_cancel) }
extension assist_worker_service: VersionedStruct { public static let minimumSize = size(through: \Self.post_main) }
extension assist_thread_check_service: VersionedStruct {
    public static let minimumSize = size(through: \Self.is_frame)
}
extension assist_camera_request: VersionedStruct { public static let minimumSize = size(through: \Self.flags) }
extension assist_camera_stats: VersionedStruct { public static let minimumSize = size(through: \Self.converted) }
extension assist_camera_service: VersionedStruct { public static let minimumSize = size(through: \Self.stats) }
extension assist_value: VersionedStruct { public static let minimumSize = size(through: \Self.size) }
extension assist_storage_service: VersionedStruct { public static let minimumSize = size(through: \Self.media_usage) }
extension assist_speech_options: VersionedStruct { public static let minimumSize = size(through: \Self.flags) }
extension assist_speech_service: VersionedStruct { public static let minimumSize = size(through: \Self.print) }
extension assist_cues_service: VersionedStruct { public static let minimumSize = size(through: \Self.enabled) }
extension assist_audio_in_service: VersionedStruct { public static let minimumSize = size(through: \Self.close) }
extension assist_http_field: VersionedStruct { public static let minimumSize = size(through: \Self.value) }
extension assist_outbox_part: VersionedStruct { public static let minimumSize = size(through: \Self.content_type) }
extension assist_outbox_request: VersionedStruct { public static let minimumSize = size(through: \Self.tag) }
extension assist_outbox_outcome: VersionedStruct { public static let minimumSize = size(through: \Self.error) }
extension assist_outbox_service: VersionedStruct { public static let minimumSize = size(through: \Self.pending) }
extension assist_playback_service: VersionedStruct { public static let minimumSize = size(through: \Self.is_playing) }
