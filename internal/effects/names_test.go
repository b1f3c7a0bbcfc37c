package effects

import (
	"reflect"
	"testing"
)

func TestHasVerb(t *testing.T) {
	for name, want := range map[string]bool{
		"MarkDone": true, "UpdateStatus": true, "Set": true, "Ack": true, "Acknowledge": false,
		"Settings": false, "Setup": false, "Publisher": false, "Del": true, "Delta": false, "Fail": true, "Failed": false,
	} {
		if got := hasVerb(name, writeVerbs...) || hasVerb(name, "Del"); got != want {
			t.Errorf("hasVerb(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestKindOf(t *testing.T) {
	for name, want := range map[string]string{
		"MarkFailed": "status write", "UpdateJobStatus": "status write", "Release": "release", "XAck": "ack",
		"Nack": "nack", "LPush": "publish", "DeleteJob": "delete", "Commit": "commit", "ExecContext": "write",
		"Shutdown": "shutdown",
	} {
		if got := kindOf(name, ""); got != want {
			t.Errorf("kindOf(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestCamelWords(t *testing.T) {
	for in, want := range map[string][]string{
		"MetricsClient": {"Metrics", "Client"}, "HTTPLogger": {"HTTP", "Logger"}, "Catalog": {"Catalog"}, "jobStore": {"job", "Store"},
	} {
		if got := camelWords(in); !reflect.DeepEqual(got, want) {
			t.Errorf("camelWords(%q) = %q, want %q", in, got, want)
		}
	}
}
