// Package transcript reads Claude Code session transcripts (JSONL files
// under ~/.claude/projects) for devlearn's extractors.
//
// The format is not documented; what this package relies on was observed
// in Claude Code 1.0.17 to 2.1.x (see testdata/transcripts). Three layers:
//
//   - Records streams raw records, allocation-free, fields pointing into the
//     line; ParseBlocks reads a message's content blocks.
//   - Walk filters out what is not the person speaking and streams three
//     channels: UserSignal (USER_SIGNALS), DialogPair (DIALOG_PAIRS) and
//     ToolCall (tool uses joined with their results). Read and ReadFiles
//     collect them into Channels.
//   - FindSession and FromPath locate a session's files, subagents included.
//
// Memory is bounded by the longest line whatever the file's size; lines that
// cannot be read (including a last line still being written) are reported
// as problems with their line numbers, never fatal.
package transcript
