package scenario

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/dcsim/dcsim/engine"
	"go.yaml.in/yaml/v3"
)

var marshalerType = reflect.TypeFor[yaml.Marshaler]()

// YAML prints the scenario fully resolved: every field, defaults spelled
// out, in schema order, with the active scheduler's and algorithm's
// parameters under nic.<scheduler> and cc.<algorithm>. Parse reads it back
// to an equal Scenario.
func (s *Scenario) YAML() []byte {
	root, err := encodeValue(reflect.ValueOf(s).Elem())
	if err == nil {
		err = appendParams(root, "nic", s.catalog().Schedulers, s.NIC.Scheduler, s.NIC.Params, s.Topology.HostLink.R())
	}
	if err == nil {
		err = appendParams(root, "cc", s.catalog().Algorithms, s.CC.Algorithm, s.CC.Params, s.Topology.HostLink.R())
	}
	if err == nil {
		err = appendWorkloadParams(root, s)
	}
	var buf bytes.Buffer
	if err == nil {
		enc := yaml.NewEncoder(&buf)
		enc.SetIndent(2)
		if err = enc.Encode(root); err == nil {
			err = enc.Close()
		}
	}
	if err != nil {
		// Only a plugin's parameter struct with a field yaml cannot print
		// gets here; TestPluginsRoundTrip guards every registered plugin.
		panic(fmt.Sprintf("scenario: cannot print scenario %q: %v", s.Name, err))
	}
	return buf.Bytes()
}

// Hash is a stable hex digest of YAML(): the first 16 hex digits (64
// bits) of its SHA-256. Equal scenarios hash equal; sweeps name run
// directories by it. The hash follows the printed form, so a change to the
// schema or its printing (a new field, say) changes every hash; a resumed
// sweep then recomputes its points rather than mixing versions.
func (s *Scenario) Hash() string {
	sum := sha256.Sum256(s.YAML())
	return hex.EncodeToString(sum[:8])
}

// appendParams adds "name: {params}" to the section's mapping. Params left
// nil (a Scenario built in Go) print the plugin's defaults.
func appendParams(root *yaml.Node, section string, table []Plugin, name string, params any, rate engine.Rate) error {
	if params == nil {
		p, ok := lookup(table, name)
		if !ok || rate <= 0 {
			return nil
		}
		params = p.Params(rate)
	}
	n, err := encodeValue(reflect.ValueOf(params))
	if err != nil {
		return err
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == section {
			sec := root.Content[i+1]
			sec.Content = append(sec.Content, scalarNode(name), n)
			return nil
		}
	}
	return fmt.Errorf("no %s section", section)
}

// appendWorkloadParams adds "kind: {params}" to the mapping of the
// workload and of each extra workload whose kind has a sub-map, after the
// workload's own fields.
func appendWorkloadParams(root *yaml.Node, s *Scenario) error {
	add := func(n *yaml.Node, w *Workload) error {
		p := s.catalog().params(w)
		if p == nil {
			return nil
		}
		pn, err := encodeValue(reflect.ValueOf(p))
		if err != nil {
			return err
		}
		n.Content = append(n.Content, scalarNode(w.Kind), pn)
		return nil
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		switch sec := root.Content[i+1]; root.Content[i].Value {
		case "workload":
			if err := add(sec, &s.Workload); err != nil {
				return err
			}
		case "extra_workloads":
			for j, item := range sec.Content {
				if err := add(item, &s.ExtraWorkloads[j]); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func scalarNode(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

// encodeValue builds the node for v, mirroring decode: fields in struct
// order, engine.Time and engine.Rate with units, lists of scalars in flow
// style.
func encodeValue(v reflect.Value) (*yaml.Node, error) {
	if (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) && v.IsNil() {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
	}
	if v.Type().Implements(marshalerType) {
		out, err := v.Interface().(yaml.Marshaler).MarshalYAML()
		if err != nil {
			return nil, err
		}
		return encodePlain(out)
	}
	switch v.Type() {
	case timeType:
		return scalarNode(engine.Time(v.Int()).String()), nil
	case rateType:
		return scalarNode(engine.Rate(v.Int()).String()), nil
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		return encodeValue(v.Elem())
	case reflect.Struct:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for _, f := range fieldsOf(v.Type()) {
			fv := v.FieldByIndex(f.index)
			if f.omitEmpty && fv.IsZero() {
				continue
			}
			c, err := encodeValue(fv)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, scalarNode(f.name), c)
		}
		if len(n.Content) == 0 {
			n.Style = yaml.FlowStyle
		}
		return n, nil
	case reflect.Slice, reflect.Array:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle}
		for i := range v.Len() {
			c, err := encodeValue(v.Index(i))
			if err != nil {
				return nil, err
			}
			if c.Kind != yaml.ScalarNode {
				n.Style = 0
			}
			n.Content = append(n.Content, c)
		}
		return n, nil
	}
	return encodePlain(v.Interface())
}

// encodePlain is yaml.Node.Encode, which prints x and parses the text
// back (about 3 us a value, most of a scenario's YAML and so of a sweep
// point's expansion). A scalar's node depends only on its value, and a
// scenario's values repeat from point to point, so the nodes of the first
// plainCacheSize distinct scalars are kept and copied.
func encodePlain(x any) (*yaml.Node, error) {
	key, cacheable := plainKey(x)
	if cacheable {
		if n, ok := plainCache.Load(key); ok {
			c := *n.(*yaml.Node)
			return &c, nil
		}
	}
	var n yaml.Node
	if err := n.Encode(x); err != nil {
		return nil, err
	}
	if cacheable && n.Kind == yaml.ScalarNode && plainCached.Add(1) <= plainCacheSize {
		c := n
		plainCache.Store(key, &c)
	}
	return &n, nil
}

const plainCacheSize = 1 << 14

var (
	plainCache  sync.Map // plainKey -> *yaml.Node, never modified
	plainCached atomic.Int64
)

// plainKey is x as a map key when x is a scalar of a basic kind; the
// dynamic type is part of the key, so 1 and int64(1) and "1" differ. A
// float zero is not cached (0 and -0 are equal keys but print apart),
// nor NaN (never equal to a key).
func plainKey(x any) (any, bool) {
	switch v := reflect.ValueOf(x); v.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.String:
		return x, true
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		return x, f != 0 && f == f
	}
	return nil, false
}
