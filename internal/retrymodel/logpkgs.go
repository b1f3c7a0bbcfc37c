package retrymodel

import "strings"

// logPkgs are logging packages by path prefix: any call into them logs,
// and a value handed to one (an error, zap.Error's field) is formatted,
// not decided on.
var logPkgs = []string{
	"log", "log/slog", "golang.org/x/exp/slog", "go.uber.org/zap", "github.com/rs/zerolog",
	"github.com/sirupsen/logrus", "k8s.io/klog", "github.com/go-logr/logr", "github.com/hashicorp/go-hclog",
	"github.com/charmbracelet/log", "github.com/go-kit/log", "github.com/go-kit/kit/log", "github.com/apex/log",
	"github.com/inconshreveable/log15", "github.com/golang/glog",
}

// LogPackage reports a logging package (or one of its subpackages).
func LogPackage(path string) bool {
	for _, p := range logPkgs {
		if path == p || strings.HasPrefix(path, p+"/") {
			return true
		}
	}
	return false
}
