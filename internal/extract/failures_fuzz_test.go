package extract

import (
	"testing"

	"github.com/devlearn/devlearn/internal/transcript"
)

// FuzzFailureFixes holds the failure-fix reading (and what the machine
// lacks, read from the same calls) to never panicking on a
// session of odd commands and error texts (empty words, bare quotes,
// links with nothing between them, terminal codes): the hook that reads a
// session must finish whatever the agent ran.
func FuzzFailureFixes(f *testing.F) {
	f.Add("go test ./...", "--- FAIL: TestX\nexit status 1", "main.go", "go test -run TestX ./...", "", uint8(0))
	f.Add(`cd "" && npm run`, "sh: 1: npm: not found", "", "npm run build | grep -v x", "", uint8(3))
	f.Add("&& || ;", "\x1b[31merror\x1b]0;t\x07", "", `'' ""`, "Error: x", uint8(7))
	f.Add("sudo -u", "Error: no such option: --x", "x.toml", "sudo -u root make", "", uint8(12))
	f.Add("python - <<'PY'\nimport onnx\nPY", "\x1b[31mParserError: <<'PY'\nNo module named 'onnx'", "", "Get-Content a.md -Encoding UTF8", "", uint8(0))
	f.Add("docker exec $(docker ps -q) ls", "syntax error near unexpected token `('\n`docker exec \\$ ( docker ps -q ) ls'", "", "type a.md", "", uint8(16))
	f.Add("systemctl status x.service", "Unit x.service could not be found.", "", "systemctl status x.service", "", uint8(16))
	f.Add("ffmpeg -i a -c:v x out", "Unknown encoder 'x'\nno decode delegate for this image format `", "", "ffmpeg -encoders", "", uint8(1))
	f.Fuzz(func(t *testing.T, failed, errText, path, next, nextErr string, flags uint8) {
		tools := []transcript.ToolCall{
			{Meta: transcript.Meta{Line: 1}, Name: "Bash", Command: failed, HasResult: true, IsError: true, Error: errText, ResultLine: 2, Unsandboxed: map[bool]string{true: transcript.EscalatedPermissions}[flags&8 != 0]},
		}
		if path != "" {
			tools = append(tools, transcript.ToolCall{Meta: transcript.Meta{Line: 3}, Name: "Edit", Paths: []string{path}, HasResult: true})
		}
		if flags&1 != 0 {
			tools = append(tools, transcript.ToolCall{Meta: transcript.Meta{Line: 4}, Name: "Bash", Command: failed, HasResult: true, IsError: true, Error: nextErr})
		}
		tools = append(tools, transcript.ToolCall{Meta: transcript.Meta{Line: 5}, Name: "Bash", Command: next, HasResult: flags&2 == 0, IsError: nextErr != "" && flags&4 != 0, Error: nextErr})
		if flags&16 != 0 {
			tools = append(tools, transcript.ToolCall{Meta: transcript.Meta{Line: 6}, Name: "Bash", Command: failed, HasResult: true})
		}
		ch := &transcript.Channels{Tools: tools}
		failureFixes(ch)
		rereadWithEncoding(ch)
		for i := range tools {
			if fs, ok := failure(&tools[i]); ok {
				unsupported(tools[i], fs)
			}
			exploring(tools[i].Command)
			errorLine(tools[i].Error)
		}
	})
}
