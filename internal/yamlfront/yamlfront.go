// Package yamlfront finds the YAML front matter of a markdown file, where
// adrg/frontmatter's YAML format finds it. The hook binary reads front
// matter (knowledge entries, the source of an artifact) but nothing else
// of that library, whose import of yaml.v2 and a TOML decoder cost every
// hook call 0.15–0.2 ms of package initialisation; devlearn decodes the
// YAML with yaml.v3, as it already did.
package yamlfront

import "bytes"

// Split finds data's front matter: after any blank lines, a line that is
// "---" once the spaces around it are trimmed, up to the next such line.
// front is the text between the two lines, rest what follows the closing
// one, and line the 1-based line of data where front starts (for the
// line numbers of errors in it). ok is false when data has no front
// matter (a first line that opens none, or none that closes it); rest is
// then all of data.
func Split(data []byte) (front, rest []byte, line int, ok bool) {
	pos := 0
	// next returns the next line, trimmed, and where the one after it
	// starts; last is true for a final line without a newline, which
	// adrg/frontmatter never takes as an opening line.
	next := func() (text []byte, after int, last bool) {
		i := bytes.IndexByte(data[pos:], '\n')
		if i < 0 {
			return bytes.TrimSpace(data[pos:]), len(data), true
		}
		return bytes.TrimSpace(data[pos : pos+i+1]), pos + i + 1, false
	}
	for {
		text, after, last := next()
		if last {
			return nil, data, 0, false
		}
		pos = after
		line++
		if len(text) == 0 {
			continue
		}
		if string(text) != "---" {
			return nil, data, 0, false
		}
		break
	}
	start := pos
	for {
		text, after, last := next()
		if string(text) == "---" {
			return data[start:pos], data[after:], line + 1, true
		}
		if last {
			return nil, data, 0, false
		}
		pos = after
	}
}
