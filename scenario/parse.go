package scenario

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Parse reads a scenario from YAML. filename is used in error messages
// and, when the input has no name field, for the scenario's name (its base
// name without extension). Each of sets is a "dotted.path=value" override
// applied to the YAML tree before decoding, so its value is read exactly
// as if it were in the file; a path given twice is an error, as a key
// given twice in a file is. The scenario returned is valid. Errors are
// *Error values: one line naming the file and line (or the --set) and the
// field.
func (c *Catalog) Parse(filename string, data []byte, sets []string) (*Scenario, error) {
	file := filename
	if file == "" {
		file = "<input>"
	}
	root, err := parseDocument(file, data)
	if err != nil {
		return nil, err
	}
	d := newDecoder(file, c)
	first := map[string]string{} // path -> the --set that gave it
	for _, arg := range sets {
		if key, _, ok := strings.Cut(arg, "="); ok {
			key = strings.TrimSpace(key)
			if prev, dup := first[key]; dup {
				return nil, &Error{File: file, Set: arg, Path: key, Msg: "set twice (first --set " + prev + ")"}
			}
			first[key] = arg
		}
		if err := d.applySet(root, arg); err != nil {
			return nil, err
		}
	}
	s := c.Default()
	s.Name = defaultName(filename)
	if err := d.decode(root, reflect.ValueOf(s).Elem(), ""); err != nil {
		return nil, err
	}
	misplaced := d.normaliseWorkloads(s)
	if err := d.resolvePlugins(s); err != nil {
		return nil, err
	}
	idx := buildIndex(root)
	given := func(path string) bool { _, ok := idx[path]; return ok }
	applyECNDefaults(s, given)
	if err := s.validate(misplaced, given); err != nil {
		var fe *FieldError
		if errors.As(err, &fe) {
			return nil, d.locate(idx, fe)
		}
		return nil, &Error{File: file, Msg: err.Error()}
	}
	return s, nil
}

// parseDocument parses data into the top-level mapping node.
func parseDocument(file string, data []byte) (*yaml.Node, error) {
	return ParseMapping(file, data, "scenario", "a mapping of scenario fields at the top level")
}

func defaultName(filename string) string {
	if filename == "" || strings.HasPrefix(filename, "<") {
		return ""
	}
	base := filepath.Base(filename)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// Load returns the built-in scenario called nameOrPath, or else parses the
// YAML file at that path; sets are applied as in Parse. A name with a path
// separator or a .yaml/.yml extension is always a file.
func (c *Catalog) Load(nameOrPath string, sets []string) (*Scenario, error) {
	isFile := strings.ContainsAny(nameOrPath, `/\`) || strings.HasSuffix(nameOrPath, ".yaml") || strings.HasSuffix(nameOrPath, ".yml")
	if !isFile {
		if b, ok := lookupBuiltin(nameOrPath); ok {
			return c.Parse(builtinFile(b.Name), []byte(b.text), sets)
		}
	}
	data, err := ReadFile(nameOrPath)
	if err != nil {
		if !isFile && errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("scenario %q is neither a built-in (%s) nor a file", nameOrPath, builtinNames())
		}
		return nil, fmt.Errorf("read scenario: %w", err)
	}
	return c.Parse(nameOrPath, data, sets)
}
