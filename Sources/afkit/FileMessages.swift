/// What a message about one file is: something done that the user did not ask for, something that may be
/// wrong, or a failure.
enum MessageKind: String {
    case note, warning, error
}

/// A line about one file, as every command words it: `COMMAND: FILE: KIND: TEXT` (`convert: a.mp3: note: the
/// MP3 ('.mp3') source is decoded ...`), so a line among many (`make -j`, a batch) says which file it is about.
/// The file is named once: a text that starts with it and a colon (quoted or not: an error thrown below the
/// command names its file so) gives it up to the file's place before the kind; one that starts with it in a
/// sentence (`'-x.wav' is no option ...`) keeps it there.
func fileMessage(_ command: String, _ argument: String, _ kind: MessageKind, _ text: String) -> String {
    for named in [argument + ": ", "'\(argument)': "] where text.hasPrefix(named) {
        return commandMessage("\(command): \(shownInput(argument))", kind, String(text.dropFirst(named.count)))
    }
    let named = text.hasPrefix(argument) || text.hasPrefix("'\(argument)'")
    return commandMessage(named ? command : "\(command): \(shownInput(argument))", kind, text)
}

/// A line about no one file (an option's value, an argument missing), as every command words it: `COMMAND: KIND:
/// TEXT` (`batch: error: --jobs takes 1 to 256`). ``fileMessage(_:_:_:_:)`` adds the file to the same shape.
func commandMessage(_ command: String, _ kind: MessageKind, _ text: String) -> String {
    "\(command): \(kind.rawValue): \(text)\n"
}
