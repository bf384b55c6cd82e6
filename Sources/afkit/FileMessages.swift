/// What a message about one file is: something done that the user did not ask for, something that may be
/// wrong, or a failure.
enum MessageKind: String {
    case note, warning, error
}

/// A line about one file, as every command words it: `COMMAND: FILE: KIND: TEXT` (`convert: a.mp3: note: the
/// MP3 ('.mp3') source is decoded ...`), so a line among many (`make -j`, a batch) says which file it is about.
/// The file is named once: a text that already starts with it (quoted or not) is not given it again.
func fileMessage(_ command: String, _ argument: String, _ kind: MessageKind, _ text: String) -> String {
    let named = text.hasPrefix(argument) || text.hasPrefix("'\(argument)'")
    return "\(command): " + (named ? "" : "\(shownInput(argument)): ") + "\(kind.rawValue): \(text)\n"
}
