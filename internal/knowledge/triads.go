package knowledge

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// A [PROCESS_KNOWLEDGE] block may be written in the triads design's keys
// (docs/capture.md, "The [PROCESS_KNOWLEDGE] block"):
//
//	type: checklist
//	priority: CRITICAL
//	label: Version Bump File Checklist
//	trigger_conditions:
//	  tool_names: [Write, Edit]
//	  file_patterns: ["**/plugin.json", "**/*version*"]
//	checklist:
//	  title: Complete Version Bump
//	  items:
//	    - pyproject.toml
//
// fromTriads renames those keys to an entry's, in place, keeping each
// node's line so that an error still names the line the agent wrote. The
// design's graph metadata (id, confidence, created_by, ...) says nothing an
// entry keeps and is dropped; its description and evidence become the
// body.
var (
	triadsKeys = map[string]string{
		"label":              "summary",
		"process_type":       "kind",
		"trigger_conditions": "triggers",
	}
	triadsTriggerKeys = map[string]string{
		"tool_names":       "tools",
		"file_patterns":    "files",
		"action_keywords":  "actions",
		"context_keywords": "context",
	}
	// triadsDropped are the triads design's keys an entry has no place for: graph
	// bookkeeping (id, confidence, who and when), the triad a node lives in.
	triadsDropped = map[string]bool{
		"id": true, "confidence": true, "created_by": true, "created_at": true,
		"reviewed_by": true, "triad": true, "triad_names": true,
	}
)

func fromTriads(doc *yaml.Node) {
	m := doc
	if m.Kind == yaml.DocumentNode && len(m.Content) == 1 {
		m = m.Content[0]
	}
	if m.Kind != yaml.MappingNode {
		return
	}
	var (
		out             []*yaml.Node
		has             = map[string]bool{}
		body, bodyKey   *yaml.Node
		description     *yaml.Node
		evidence        *yaml.Node
		typeKey, typeV  *yaml.Node
		firstLine       = m.Line
		kindFromProcess bool
	)
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		switch name := k.Value; {
		case triadsDropped[name]:
			continue
		case name == "type":
			// The triads design's node type ("Concept") or its block's process
			// type ("checklist").
			typeKey, typeV = k, v
			continue
		case name == "description":
			description = v
			continue
		case name == "evidence":
			evidence = v
			continue
		case name == "body":
			body, bodyKey = v, k
			continue
		case triadsKeys[name] != "":
			if name == "process_type" {
				kindFromProcess = true
			}
			k.Value = triadsKeys[name]
			if k.Value == "triggers" {
				fromTriadsTriggers(v)
			}
		}
		has[k.Value] = true
		out = append(out, k, v)
	}
	if typeV != nil && typeV.Kind == yaml.ScalarNode && !strings.EqualFold(typeV.Value, "concept") {
		if !has["kind"] {
			typeKey.Value = "kind"
			typeV.Value = strings.ToLower(typeV.Value)
			out = append(out, typeKey, typeV)
			has["kind"] = true
		} else if !kindFromProcess {
			// Both "kind" and "type": the entry's own key wins, and the
			// other is reported where it was written.
			out = append(out, typeKey, typeV)
		}
	}
	// The description, the body and the evidence are one text.
	var texts []string
	line := 0
	for _, n := range []*yaml.Node{description, body} {
		if n != nil && n.Kind == yaml.ScalarNode && strings.TrimSpace(n.Value) != "" {
			texts = append(texts, strings.TrimSpace(n.Value))
			if line == 0 {
				line = n.Line
			}
		}
	}
	if evidence != nil && evidence.Kind == yaml.ScalarNode && strings.TrimSpace(evidence.Value) != "" {
		texts = append(texts, "Evidence: "+strings.TrimSpace(evidence.Value))
		if line == 0 {
			line = evidence.Line
		}
	}
	switch {
	case body != nil && body.Kind != yaml.ScalarNode:
		out = append(out, bodyKey, body) // reported as it is
	case len(texts) > 0:
		if line == 0 {
			line = firstLine
		}
		out = append(out,
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "body", Line: line},
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: strings.Join(texts, "\n\n"), Line: line})
	}
	m.Content = out
}

func fromTriadsTriggers(v *yaml.Node) {
	if v.Kind != yaml.MappingNode {
		return
	}
	var out []*yaml.Node
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		if triadsDropped[k.Value] {
			continue
		}
		if n := triadsTriggerKeys[k.Value]; n != "" {
			k.Value = n
		}
		out = append(out, k, val)
	}
	v.Content = out
}
