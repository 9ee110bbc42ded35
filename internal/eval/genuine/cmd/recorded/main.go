// Command recorded stands in for the LLM extractor's model with answers
// recorded beforehand, so the LLM route can be measured on the genuine set
// (evalgenuine -config) by whoever wrote the answers, and measured again
// unchanged. It reads devlearn's prompt on stdin and prints the answer kept
// for the prompt's candidates; a prompt it has no answer for is kept to be
// answered, and gets an empty answer.
//
//	recorded [-seen] ANSWERS [PROMPTS]
//
// ANSWERS/KEY.json are the answers; a prompt without one is written to
// PROMPTS/KEY.txt when PROMPTS is given. KEY is a hash of the candidates alone: one session's
// candidates are the same whatever observations the log held before it,
// so one answer serves the session read alone and read after its project's
// earlier sessions. Of the prompts of one key, the shortest is kept (the
// fewest existing observations to read).
//
// With -seen, a prompt that shows existing observations is answered for
// them: its key hashes the existing observations too, so the model's
// answer can re-sight an earlier session's lesson by its id, as it does in
// use. Until that answer is written, the prompt is kept under that key
// and answered as the session read alone was.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/devlearn/devlearn/internal/jsonl"
)

const empty = `{"observations":[]}`

func main() {
	seen := flag.Bool("seen", false, "answer a prompt showing existing observations for them")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: recorded [-seen] ANSWERS [PROMPTS]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() < 1 || flag.NArg() > 2 {
		flag.Usage()
		os.Exit(2)
	}
	prompt, err := io.ReadAll(os.Stdin)
	if err == nil {
		err = answer(flag.Arg(0), flag.Arg(1), prompt, *seen, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "recorded:", err)
		os.Exit(1)
	}
}

// answer writes the answer kept for the prompt, trying its keys in turn:
// with seen, first the one for what it shows, then the one for its
// candidates alone. The prompt is kept under the first key without an
// answer, to be answered; with none, the answer is empty.
func answer(answers, prompts string, prompt []byte, seen bool, w io.Writer) error {
	key, seenKey, err := keysOf(prompt)
	if err != nil {
		return err
	}
	keys := []string{key}
	if seen && seenKey != "" {
		keys = []string{seenKey, key}
	}
	for i, k := range keys {
		b, err := os.ReadFile(filepath.Join(answers, k+".json"))
		if err == nil {
			_, err = w.Write(b)
			return err
		}
		if !errors.Is(err, os.ErrNotExist) {
			return err
		}
		if i == 0 && prompts != "" {
			if err := keep(prompts, k, prompt); err != nil {
				return err
			}
		}
	}
	_, err = io.WriteString(w, empty)
	return err
}

// keysOf hashes the candidates of the JSON document that ends the prompt,
// and the candidates with the existing observations it shows ("" when it
// shows none).
func keysOf(prompt []byte) (key, seenKey string, err error) {
	at := bytes.LastIndex(prompt, []byte("\n{\"existing_observations\""))
	if at < 0 {
		return "", "", errors.New("no candidates document in the prompt")
	}
	var doc struct {
		Existing   json.RawMessage `json:"existing_observations"`
		Candidates json.RawMessage `json:"candidates"`
	}
	if err := json.Unmarshal(prompt[at+1:], &doc); err != nil {
		return "", "", fmt.Errorf("the prompt's candidates: %w", err)
	}
	var cands, existing bytes.Buffer
	if err := json.Compact(&cands, doc.Candidates); err != nil {
		return "", "", err
	}
	if err := json.Compact(&existing, doc.Existing); err != nil {
		return "", "", err
	}
	key = hash(cands.Bytes())
	if existing.String() != "[]" {
		seenKey = hash(append(append(existing.Bytes(), '\n'), cands.Bytes()...))
	}
	return key, seenKey, nil
}

func hash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// keep writes the prompt to be answered, unless a shorter one of the same
// key is there; whole, since runs in parallel share the folder.
func keep(dir, key string, prompt []byte) error {
	path := filepath.Join(dir, key+".txt")
	if fi, err := os.Stat(path); err == nil && fi.Size() <= int64(len(prompt)) {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return jsonl.WriteFileAtomic(dir, path, prompt, 0o644)
}
