package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/devlearn/devlearn/internal/eval/capture"
	"github.com/devlearn/devlearn/internal/transcript"
)

// routes prints the section of the routes beyond the offline extractors:
// the agent as extractor and the LLM route (docs/capture.md).
func routes(cases []*capture.Case, dir, root string) error {
	rt, err := capture.MeasureRoutes(cases, root, filepath.Join(dir, "agent"), filepath.Join(dir, "llm"), transcript.Options{})
	if err != nil {
		return err
	}
	fmt.Printf("\nThe other routes, on the same set\n\n")
	return capture.WriteRoutes(os.Stdout, rt)
}
