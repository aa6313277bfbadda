package cctest

import (
	"errors"
	"reflect"
	"strings"

	"github.com/dcsim/dcsim/cc"
)

// YAMLKeys lists the yaml keys of struct v's exported fields in order, so
// an algorithm's tests can pin its parameter names; an embedded struct
// tagged `yaml:",inline"` (cc.NICParams) lists its keys in its place, as
// scenarios read and print them. A field without a yaml tag shows as "!"
// followed by its Go name; a key that is not snake_case shows as "!"
// followed by the key.
func YAMLKeys(v any) []string {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var keys []string
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		key, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		switch {
		case f.Anonymous && key == "" && opts == "inline":
			keys = append(keys, YAMLKeys(reflect.New(f.Type).Elem().Interface())...)
		case key == "":
			keys = append(keys, "!"+f.Name)
		case strings.Trim(key, "abcdefghijklmnopqrstuvwxyz0123456789_") != "" || strings.HasPrefix(key, "_"):
			keys = append(keys, "!"+key)
		default:
			keys = append(keys, key)
		}
	}
	return keys
}

// ParamField returns the Field of err when it is (or wraps) a
// *cc.ParamError, else "".
func ParamField(err error) string {
	var pe *cc.ParamError
	if errors.As(err, &pe) {
		return pe.Field
	}
	return ""
}
