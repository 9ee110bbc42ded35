package main

import (
	"bytes"
	"os"
	"path/filepath"

	"github.com/klauspost/compress/zstd"
	"github.com/rogpeppe/go-internal/testscript"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// cmdSchema validates a JSON file against a JSON Schema file, as the
// agent that reads it would: `schema $CODEX_SCHEMAS/stop.command.output.schema.json stdout`
// (stdout is the last command's output). With ! it must fail.
func cmdSchema(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: schema SCHEMA FILE|stdout")
	}
	var data []byte
	if args[1] == "stdout" {
		data = []byte(ts.ReadFile("stdout"))
	} else {
		var err error
		data, err = os.ReadFile(ts.MkAbs(args[1]))
		ts.Check(err)
	}
	s, err := jsonschema.NewCompiler().Compile(ts.MkAbs(args[0]))
	ts.Check(err)
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		ts.Fatalf("%s is not JSON: %v\n%s", args[1], err, data)
	}
	err = s.Validate(v)
	switch {
	case err != nil && !neg:
		ts.Fatalf("%s does not validate against %s:\n%s\n%v", args[1], filepath.Base(args[0]), data, err)
	case err == nil && neg:
		ts.Fatalf("%s validates against %s", args[1], filepath.Base(args[0]))
	}
}

// cmdZstd compresses a file the way Codex compresses an old rollout:
// `zstd rollout.jsonl` writes rollout.jsonl.zst and removes the original.
func cmdZstd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: zstd FILE")
	}
	p := ts.MkAbs(args[0])
	data, err := os.ReadFile(p)
	ts.Check(err)
	enc, err := zstd.NewWriter(nil)
	ts.Check(err)
	ts.Check(os.WriteFile(p+".zst", enc.EncodeAll(data, nil), 0o644))
	ts.Check(os.Remove(p))
}
