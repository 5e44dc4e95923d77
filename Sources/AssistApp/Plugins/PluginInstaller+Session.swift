import AssistCore
import Foundation
import Interaction
import PluginHost

extension PluginInstaller {
    /// Runs `work` with an installer for the chosen folder; its result is said, a refusal is said on standard
    /// error, and the exit code is non-zero.
    package static func run(
        options: HostOptions, system: Bool, yes: Bool, _ work: (PluginInstaller) throws(InstallRefusal) -> String
    ) throws {
        let session = try HostSession(options: options, interactive: false, speaks: !options.noSpeech)
        let errors = Announcer(
            output: StandardErrorOutput(), speaker: session.speech, language: session.announcer.language)
        let outcome: Result<String, InstallRefusal>
        if system && geteuid() != 0 {
            outcome = .failure(
                InstallRefusal(message: "The system plugin folder is for root; run the command again with sudo."))
        } else {
            let installer = PluginInstaller(
                session: session,
                folder: system ? PluginSearchPath.systemFolder() : PluginSearchPath.userFolder(),
                system: system, passThrough: options.passThrough,
                ask: { question in ask(question, session: session, yes: yes) })
            do throws(InstallRefusal) { outcome = .success(try work(installer)) } catch { outcome = .failure(error) }
        }
        switch outcome {
        case .success(let line):
            session.announcer.say(line)
            session.shutdown()
        case .failure(let refusal):
            errors.say(refusal.message, priority: .important)
            session.shutdown()
            throw ExitStatus(code: refusal.exitCode)
        }
    }

    /// Says `question` and reads the answer from standard input: y or yes is yes; anything else, or no input
    /// at all, is no. `--yes` answers at once.
    private static func ask(_ question: String, session: HostSession, yes: Bool) -> Bool {
        session.announcer.say(question)
        if yes {
            session.announcer.print("Yes (--yes).")
            return true
        }
        guard let answer = readLine(strippingNewline: true)?.trimmingCharacters(in: .whitespaces).lowercased() else {
            return false
        }
        return answer == "y" || answer == "yes"
    }
}
