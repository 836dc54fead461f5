import Dashboard
import TerminalUI

/// Runs `action` and every effect it causes, synchronously, to a quiet state.
func drive(_ action: Action, _ state: inout AppState, _ runner: EffectRunner) {
    var queue = [action]
    while !queue.isEmpty { queue += update(&state, queue.removeFirst()).map(runner.perform) }
}

func keys(_ chords: String..., state: inout AppState, runner: EffectRunner) throws {
    for chord in chords {
        for key in try KeyChord(parsing: chord).keys { drive(.key(key), &state, runner) }
    }
}
