package cc

import "fmt"

// ParamError is an unusable algorithm parameter. Field is the parameter's
// YAML key within the algorithm's own settings (e.g. "rate_ai" for
// cc.dcqcn.rate_ai), so that a scenario parser can point at its line.
type ParamError struct {
	Algorithm string // e.g. "dcqcn"
	Field     string // YAML key, snake_case
	Msg       string // what is wrong, lower case
}

func (e *ParamError) Error() string {
	return fmt.Sprintf("%s: %s: %s", e.Algorithm, e.Field, e.Msg)
}

// ParamErrorf builds a *ParamError with a formatted message.
func ParamErrorf(algorithm, field, format string, args ...any) error {
	return &ParamError{Algorithm: algorithm, Field: field, Msg: fmt.Sprintf(format, args...)}
}
