package scenario

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Every YAML input, a scenario file, a sweep file or a --set value, goes
// through ParseMapping, which bounds the work it can cause before anything
// walks the tree: the file's size, the number of nodes once aliases are
// expanded (a 500-byte file of nested aliases otherwise expands to
// billions), and the nesting depth. Package sweep uses it too, so the
// bounds and the error format are one.
const (
	// MaxFileBytes bounds a scenario or sweep file; the largest shipped
	// one is under 4 KB.
	MaxFileBytes = 1 << 20
	// maxNodes bounds the values decoded, aliases expanded: a scenario
	// has a few hundred; this stops alias bombs.
	maxNodes = 100_000
	// maxDepth bounds nesting, aliases included; the schema is 4 deep.
	maxDepth = 64
)

// ReadFile reads a scenario or sweep file of at most MaxFileBytes.
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileBytes {
		return nil, &Error{File: path, Msg: fmt.Sprintf("larger than %d bytes: not a scenario or sweep file", MaxFileBytes)}
	}
	return data, nil
}

// ParseMapping parses data, one YAML document, into its top-level mapping
// and checks the bounds above. Empty input (or a null document) is an
// empty mapping. what names the kind of file in errors ("scenario",
// "sweep"); want says what the top level should hold.
func ParseMapping(file string, data []byte, what, want string) (*yaml.Node, error) {
	if len(data) > MaxFileBytes {
		return nil, &Error{File: file, Msg: fmt.Sprintf("larger than %d bytes: not a %s file", MaxFileBytes, what)}
	}
	if e := checkUTF8(file, data); e != nil {
		return nil, e
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	err := dec.Decode(&doc)
	if err == io.EOF {
		return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}, nil
	}
	if err != nil {
		return nil, syntaxError(file, err)
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == nil:
		if len(extra.Content) > 0 {
			extra.Line = extra.Content[0].Line
		}
		return nil, &Error{File: file, Line: extra.Line, Msg: fmt.Sprintf("more than one YAML document; a %s is one mapping", what)}
	case err != io.EOF:
		return nil, syntaxError(file, err)
	}
	if err := CheckYAMLSize(file, &doc); err != nil {
		return nil, err
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}, nil
	}
	root := doc.Content[0]
	if isNull(root) {
		return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: root.Line}, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, &Error{File: file, Line: root.Line, Msg: fmt.Sprintf("want %s, got %s", want, NodeKind(root))}
	}
	return root, nil
}

// CheckYAMLSize rejects a tree that, with every alias expanded, has more
// than maxNodes nodes or nests deeper than maxDepth, or whose alias refers
// to itself. It costs one visit per distinct node: an anchor's expanded
// size is counted once and reused at each alias.
func CheckYAMLSize(file string, n *yaml.Node) error {
	c := sizeCounter{file: file, size: map[*yaml.Node]int{}}
	_, err := c.count(n, 0)
	return err
}

type sizeCounter struct {
	file string
	size map[*yaml.Node]int // expanded size of a finished node; -1 while it is being counted
}

func (c *sizeCounter) count(n *yaml.Node, depth int) (int, error) {
	if depth > maxDepth {
		return 0, &Error{File: c.file, Line: n.Line, Msg: fmt.Sprintf("nested more than %d deep (aliases expanded)", maxDepth)}
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	switch sz, seen := c.size[n]; {
	case seen && sz < 0:
		return 0, &Error{File: c.file, Line: n.Line, Msg: "an alias refers to the node that contains it"}
	case seen:
		return sz, nil
	}
	c.size[n] = -1
	total := 1
	for _, ch := range n.Content {
		sz, err := c.count(ch, depth+1)
		if err != nil {
			return 0, err
		}
		total += sz
		if total > maxNodes {
			return 0, &Error{File: c.file, Line: n.Line, Msg: fmt.Sprintf("document too large: more than %d values once aliases are expanded", maxNodes)}
		}
	}
	c.size[n] = total
	return total, nil
}

// checkUTF8 rejects text that is not UTF-8 at the line of its first bad
// byte: yaml.v3 says only "invalid leading UTF-8 octet". Input that starts
// with a UTF-16 byte-order mark is yaml.v3's to decode.
func checkUTF8(file string, data []byte) *Error {
	if utf8.Valid(data) || bytes.HasPrefix(data, []byte{0xfe, 0xff}) || bytes.HasPrefix(data, []byte{0xff, 0xfe}) {
		return nil
	}
	line, col := 1, 1
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return &Error{File: file, Line: line, Msg: fmt.Sprintf("not UTF-8 text: byte 0x%02x at column %d (save the file as UTF-8)", data[i], col)}
		}
		if r == '\n' {
			line, col = line+1, 0
		}
		i += n
		col++
	}
	return nil
}

// NodeKind names what n is, for an error that says what was found where
// something else was wanted: "a mapping", "a list", "null", or a scalar's
// text in quotes. Scenario files and sweep files word it alike.
func NodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.DocumentNode:
		return "a document"
	}
	if isNull(n) {
		return "null"
	}
	return fmt.Sprintf("%q", n.Value)
}
