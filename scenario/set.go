package scenario

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// setSegment is one element of a --set path: a field name, optionally
// followed by a list index ("extra_workloads[0]").
type setSegment struct {
	name  string
	index int // -1 when absent
}

var setSegmentRE = regexp.MustCompile(`^([A-Za-z0-9_-]+)(?:\[(\d+)\])?$`)

func parseSetPath(key string) ([]setSegment, error) {
	if key == "" {
		return nil, fmt.Errorf("missing field path before '='")
	}
	var out []setSegment
	for _, part := range strings.Split(key, ".") {
		m := setSegmentRE.FindStringSubmatch(part)
		if m == nil {
			return nil, fmt.Errorf("bad path element %q (want a field name, optionally with an index like [0])", part)
		}
		seg := setSegment{name: m[1], index: -1}
		if m[2] != "" {
			i, err := strconv.Atoi(m[2])
			if err != nil || i >= maxNodes {
				return nil, fmt.Errorf("index %s is out of range", m[2])
			}
			seg.index = i
		}
		out = append(out, seg)
	}
	return out, nil
}

// parseSetValue reads the value of a --set as YAML, so that it goes
// through the same decoding as the file: "0.8", "10ms", "[1,2,3]",
// "{kmin: 100KB}". An empty value is the empty string.
func parseSetValue(val string) (*yaml.Node, error) {
	if strings.TrimSpace(val) == "" {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: ""}, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(val), &doc); err != nil {
		return nil, fmt.Errorf("bad value: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: ""}, nil
	}
	return doc.Content[0], nil
}

// applySet applies one "a.b=value" override to the document's top-level
// mapping, creating missing mappings on the way. It does not check field
// names: the decoder does, and reports a bad name as coming from arg.
func (d *decoder) applySet(root *yaml.Node, arg string) error {
	bad := func(format string, args ...any) error {
		return &Error{File: d.file, Set: arg, Msg: fmt.Sprintf(format, args...)}
	}
	key, val, ok := strings.Cut(arg, "=")
	if !ok {
		return bad("want key=value")
	}
	segs, err := parseSetPath(strings.TrimSpace(key))
	if err != nil {
		return bad("%v", err)
	}
	value, err := parseSetValue(val)
	if err != nil {
		return bad("%v", err)
	}
	d.mark(value, arg)

	cur := root
	var at string // the path walked so far, for messages
	for i, seg := range segs {
		last := i == len(segs)-1
		if isNull(cur) && cur != root {
			*cur = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: cur.Line, Column: cur.Column}
		}
		switch cur.Kind {
		case yaml.MappingNode:
		case yaml.AliasNode:
			return bad("%s is an alias; --set cannot change inside it", at)
		default:
			return bad("%s is not a mapping", at)
		}
		at = joinPath(at, seg.name)
		vi := -1
		for j := 0; j+1 < len(cur.Content); j += 2 {
			if cur.Content[j].Kind == yaml.ScalarNode && cur.Content[j].Value == seg.name {
				vi = j + 1
				break
			}
		}
		if vi < 0 {
			k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: seg.name}
			var v *yaml.Node
			switch {
			case seg.index >= 0:
				v = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
			case last:
				v = value
			default:
				v = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			}
			d.origin[k], d.origin[v] = arg, arg
			cur.Content = append(cur.Content, k, v)
			vi = len(cur.Content) - 1
			if seg.index < 0 {
				cur = v
				continue
			}
		}
		if seg.index < 0 {
			if last {
				cur.Content[vi] = value
			} else {
				cur = cur.Content[vi]
			}
			continue
		}
		seq := cur.Content[vi]
		at = fmt.Sprintf("%s[%d]", at, seg.index)
		if isNull(seq) {
			*seq = yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: seq.Line, Column: seq.Column}
		}
		if seq.Kind != yaml.SequenceNode {
			return bad("%s is not a list", strings.TrimSuffix(at, fmt.Sprintf("[%d]", seg.index)))
		}
		switch {
		case seg.index < len(seq.Content) && last:
			seq.Content[seg.index] = value
		case seg.index < len(seq.Content):
			cur = seq.Content[seg.index]
		case seg.index == len(seq.Content):
			// One past the end appends: --set extra_workloads[0].kind=incast
			// adds a workload.
			item := value
			if !last {
				item = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
				d.origin[item] = arg
			}
			seq.Content = append(seq.Content, item)
			cur = item
		default:
			return bad("%s: the list has %d items", at, len(seq.Content))
		}
	}
	return nil
}

// mark records that n and everything below it came from arg.
func (d *decoder) mark(n *yaml.Node, arg string) {
	d.origin[n] = arg
	for _, c := range n.Content {
		d.mark(c, arg)
	}
}

// fieldIndex maps dotted field paths ("switch.ecn.kmin",
// "extra_workloads[1].load") to the nodes that set them, so that an error
// from Validate, which knows only the path, gets a line. Aliases are not
// followed: a path inside one resolves to the alias's own line.
type fieldIndex map[string]fieldNodes

type fieldNodes struct{ key, value *yaml.Node }

func buildIndex(root *yaml.Node) fieldIndex {
	idx := make(fieldIndex)
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				p := joinPath(path, k.Value)
				if _, dup := idx[p]; !dup {
					idx[p] = fieldNodes{k, v}
				}
				walk(v, p)
			}
		case yaml.SequenceNode:
			for i, item := range n.Content {
				p := fmt.Sprintf("%s[%d]", path, i)
				idx[p] = fieldNodes{item, item}
				walk(item, p)
			}
		}
	}
	walk(root, "")
	return idx
}

// locate turns a FieldError into an *Error at the line of the field, or of
// its nearest ancestor present in the input (a field left at its default
// has no line of its own), or at the --set that supplied the value.
func (d *decoder) locate(idx fieldIndex, fe *FieldError) *Error {
	for p := fe.Path; p != ""; p = parentPath(p) {
		nodes, ok := idx[p]
		if !ok {
			continue
		}
		if set, ok := d.origin[nodes.value]; ok {
			return &Error{File: d.file, Set: set, Path: fe.Path, Msg: fe.Msg}
		}
		return d.errAt(nodes.key, fe.Path, "%s", fe.Msg)
	}
	return &Error{File: d.file, Path: fe.Path, Msg: fe.Msg}
}

func parentPath(p string) string {
	i := strings.LastIndexAny(p, ".[")
	if i < 0 {
		return ""
	}
	return p[:i]
}
