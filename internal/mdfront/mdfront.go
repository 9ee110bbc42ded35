// Package mdfront finds the YAML front matter of devlearn's markdown files
// (knowledge entries, artifacts, their scrubbed copies) with
// adrg/frontmatter, and says on which line it starts so that an error in
// it can name that line. devlearn decodes the YAML itself with yaml.v3,
// which keeps comments and positions; adrg/frontmatter only finds it.
package mdfront

import (
	"bytes"

	"github.com/adrg/frontmatter"
)

// yamlFormat is front matter between two "---" lines. Its unmarshal only
// keeps the text: the caller decodes it.
func yamlFormat(keep *[]byte) *frontmatter.Format {
	return frontmatter.NewFormat("---", "---", func(b []byte, _ any) error {
		*keep = bytes.Clone(b)
		return nil
	})
}

// Split finds data's front matter where adrg/frontmatter finds it: after
// any blank lines, a line that is "---" once trimmed, up to the next such
// line. front is the text between the two lines, rest what follows the
// closing one, and line the 1-based line of data where front starts. ok
// is false when data has none (a first line that opens none, or none that
// closes it); rest is then all of data.
func Split(data []byte) (front, rest []byte, line int, ok bool) {
	var kept []byte
	rest, err := frontmatter.MustParse(bytes.NewReader(data), nil, yamlFormat(&kept))
	if err != nil {
		return nil, data, 0, false
	}
	if kept == nil {
		kept = []byte{}
	}
	return kept, rest, openingLine(data) + 1, true
}

// openingLine is the 1-based line of data's first line that is not blank:
// the opening "---", since only blank lines may come before it.
func openingLine(data []byte) int {
	n := 1
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 || len(bytes.TrimSpace(data[:i])) > 0 {
			return n
		}
		data, n = data[i+1:], n+1
	}
}
