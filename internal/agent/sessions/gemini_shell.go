package sessions

import (
	"strconv"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// geminiShell is the name of Gemini CLI's shell tool.
const geminiShell = "run_shell_command"

// shellFailure reads what Gemini CLI's shell tool gave back to the model.
// The tool reports success whenever the command ran, whatever it exited
// with; the exit code is a line of its output ("Exit Code: 127"), after
// the command's streams: "Stdout: …" and "Stderr: …" in older versions,
// one "Output: …" in newer ones. A command that exited non-zero failed,
// and what it printed is its error.
func shellFailure(output string) (errText string, failed bool) {
	code := ""
	for l := range strings.Lines(output) {
		if c, ok := strings.CutPrefix(strings.TrimSpace(l), "Exit Code: "); ok {
			code = c
		}
	}
	if n, err := strconv.Atoi(code); err != nil || n == 0 {
		return "", false
	}
	var parts []string
	for _, field := range []string{"Stderr", "Output", "Stdout", "Error"} {
		if v := shellField(output, field); v != "" && v != "(empty)" && v != "(none)" {
			parts = append(parts, v)
		}
	}
	if len(parts) == 0 {
		return "Exit Code: " + code, true
	}
	return strings.Join(parts, "\n"), true
}

// shellFields are the labels of the shell tool's output, in its order.
var shellFields = []string{"Command", "Directory", "Output", "Stdout", "Stderr", "Error", "Exit Code", "Signal", "Background PIDs", "Process Group PGID"}

// shellField is the text after "name: " up to the next label's line.
func shellField(output, name string) string {
	at := -1
	if strings.HasPrefix(output, name+": ") {
		at = 0
	} else if i := strings.Index(output, "\n"+name+": "); i >= 0 {
		at = i + 1
	}
	if at < 0 {
		return ""
	}
	rest := output[at+len(name)+2:]
	end := len(rest)
	for _, f := range shellFields {
		if i := strings.Index(rest, "\n"+f+": "); i >= 0 && i < end {
			end = i
		}
	}
	return strings.TrimSpace(rest[:end])
}

// responseOutput is the output a functionResponse part gives back
// ([{functionResponse: {response: {output}}}]), or "".
func responseOutput(v jsontext.Value) string {
	var parts []struct {
		FunctionResponse functionResponse `json:"functionResponse"`
	}
	if jsonv2.Unmarshal(v, &parts, lenient) != nil {
		return ""
	}
	var out []string
	for _, p := range parts {
		if o := p.FunctionResponse.Response.Output; o != "" {
			out = append(out, o)
		}
	}
	return strings.Join(out, "\n")
}
