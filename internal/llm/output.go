package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// maxDepth bounds the nesting of anything read from the command. Claude
// Code's envelope is a few levels deep and an answer four; a deeper value
// is a runaway or an attack on the decoder, refused before it is decoded.
const maxDepth = 32

// decodeOutput finds the answer's items in what the command printed:
//   - Claude Code's --output-format json object: its structured_output
//     (with --json-schema) or its result, a string holding the JSON answer
//     (possibly in one ```json fence);
//   - the same as a list of messages (--verbose), whose last "result" counts;
//   - the answer itself, {"observations": [...]}, from a command of one's own.
//
// Only the shape is checked here; each item is validated on its own later,
// so one bad item does not cost the good ones.
func decodeOutput(out []byte) ([]json.RawMessage, error) {
	out = bytes.TrimSpace(out)
	if len(out) == 0 {
		return nil, errors.New("it printed nothing")
	}
	if err := checkDepth(out); err != nil {
		return nil, err
	}
	// One decode: the first byte tells a list of messages from an object.
	if out[0] == '[' {
		var msgs []json.RawMessage
		if err := json.Unmarshal(out, &msgs); err != nil {
			return nil, fmt.Errorf("not JSON (%s)", shortJSONError(err))
		}
		raw, err := lastResult(msgs)
		if err != nil {
			return nil, err
		}
		out = raw
	}
	var env struct {
		Observations     json.RawMessage `json:"observations"`
		StructuredOutput json.RawMessage `json:"structured_output"`
		Result           *string         `json:"result"`
		IsError          bool            `json:"is_error"`
		Subtype          string          `json:"subtype"`
	}
	if err := json.Unmarshal(out, &env); err != nil {
		// Unmarshal checks the whole text before it decodes: a syntax
		// error is text that is no JSON at all.
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			return nil, fmt.Errorf("not JSON (%s)", shortJSONError(err))
		}
		return nil, fmt.Errorf("not a JSON object (%s)", shortJSONError(err))
	}
	switch {
	case env.Observations != nil:
		return answerItems(out)
	case len(env.StructuredOutput) > 0 && !bytes.Equal(env.StructuredOutput, []byte("null")):
		return answerItems(env.StructuredOutput)
	case env.IsError || strings.HasPrefix(env.Subtype, "error"):
		msg := fmt.Sprintf("the model's run ended in an error (%s)", oneLine(clipStart(env.Subtype, 80)))
		if env.Subtype == "error_max_turns" {
			msg += "; an answer checked against --json-schema takes a tool call: raise --max-turns in extractor.command to 2 or more"
		}
		return nil, errors.New(msg)
	case env.Result != nil:
		text := unfence(*env.Result)
		if err := checkDepth([]byte(text)); err != nil {
			return nil, err
		}
		return answerItems([]byte(text))
	}
	return nil, errors.New(`it holds no answer: want {"observations": [...]}, or Claude Code's JSON output with "structured_output" or "result"`)
}

// lastResult picks the last {"type": "result"} message of a list.
func lastResult(msgs []json.RawMessage) ([]byte, error) {
	for i := len(msgs) - 1; i >= 0; i-- {
		var m struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(msgs[i], &m) == nil && m.Type == "result" {
			return msgs[i], nil
		}
	}
	return nil, errors.New(`a list of messages without a "result"`)
}

// answerItems reads {"observations": [...]} and returns the raw items.
// Other keys are never read; they are left out without a word, as the
// schema the model was given allows none.
func answerItems(data []byte) ([]json.RawMessage, error) {
	var a struct {
		Observations *[]json.RawMessage `json:"observations"`
	}
	if err := json.Unmarshal(data, &a); err != nil {
		return nil, fmt.Errorf(`the answer is not {"observations": [...]} (%s)`, shortJSONError(err))
	}
	if a.Observations == nil {
		return nil, errors.New(`the answer has no "observations" list`)
	}
	return *a.Observations, nil
}

// unfence returns the JSON inside a reply that is one fenced code block
// (```json ... ```), which models write even when told not to; anything
// else is returned as it is, for the JSON decoder to judge.
func unfence(s string) string {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "```") || !strings.HasSuffix(t, "```") || len(t) < 6 {
		return t
	}
	body := t[3 : len(t)-3]
	nl := strings.IndexByte(body, '\n')
	if nl < 0 {
		return t
	}
	if lang := strings.TrimSpace(body[:nl]); lang != "" && lang != "json" {
		return t
	}
	body = body[nl+1:]
	if strings.Contains(body, "```") {
		return t // more than one block: not an answer
	}
	return strings.TrimSpace(body)
}

// checkDepth refuses JSON nested deeper than maxDepth, in one pass over
// the bytes, before any decoder recurses into it.
func checkDepth(data []byte) error {
	depth, inString, escaped := 0, false, false
	for _, c := range data {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			if depth > maxDepth {
				return fmt.Errorf("it is nested deeper than %d levels", maxDepth)
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return nil
}

func shortJSONError(err error) string {
	return clipStart(oneLine(err.Error()), 120)
}
