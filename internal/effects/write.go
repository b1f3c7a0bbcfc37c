package effects

import (
	"go/ast"
	"go/constant"
	"go/types"
	"strings"
	"unicode"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/types/typeutil"

	"github.com/retryvet/retryvet/internal/retrymodel"
)

// Classify decides whether call is work that must happen and which
// argument is its context. The rule, in order:
//  1. a method or function of a well-known store or queue package whose
//     name writes (table below; for these packages the table alone decides);
//  2. a function of the project with a WritesFact (it passes that context
//     parameter to such work);
//  3. a method of an interface declared in the analysed module whose name
//     is a write verb (writeVerbs) and whose first parameter is a context.
//
// Anything else is not a write: a method name alone on an arbitrary
// concrete type decides nothing.
func (c *Result) Classify(call *ast.CallExpr) *Write {
	fn, ok := typeutil.Callee(c.info, call).(*types.Func)
	if !ok || fn.Pkg() == nil {
		return nil
	}
	fn = fn.Origin()
	sig, ok := fn.Type().(*types.Signature)
	if !ok {
		return nil
	}
	if w := c.gormWrite(call, fn); w != nil {
		return w
	}
	if w := c.etcdOpWrite(call); w != nil {
		return w
	}
	ctxArg := -1
	for i := 0; i < sig.Params().Len(); i++ {
		if retrymodel.IsContext(sig.Params().At(i).Type()) {
			ctxArg = i
			break
		}
	}
	if ctxArg < 0 || ctxArg >= len(call.Args) || (sig.Variadic() && ctxArg == sig.Params().Len()-1) {
		return nil
	}
	w := &Write{Call: call, Ctx: call.Args[ctxArg], Callee: CalleeText(call)}
	path := fn.Pkg().Path()
	if k, table := Known(path, retrymodel.RecvName(fn), fn.Name(), call, c.info); table {
		if k == "" {
			return nil
		}
		w.Kind = k
		w.Store = path
		w.Adds = adds(path, fn.Name(), call, c.info)
		return w
	}
	if f := c.factOf(fn); f != nil {
		if f.Param != ctxArg {
			return nil
		}
		w.Kind = kindOf(fn.Name(), f.Kind)
		w.Via = "writes through " + f.Via + " at " + f.Posn
		w.Store = f.Store
		w.Adds = f.Adds
		return w
	}
	if impl, f := c.ImplFact(fn); f != nil && f.Param == ctxArg {
		w.Kind = kindOf(fn.Name(), f.Kind)
		w.Via = "reaches " + retrymodel.RecvName(impl) + "." + impl.Name() + ", which writes through " + f.Via + " at " + f.Posn
		w.Store = f.Store
		w.Adds = f.Adds
		return w
	}
	if ctxArg == 0 && grpcMethod(sig) && hasVerb(fn.Name(), grpcVerbs...) {
		w.Kind = kindOf(fn.Name(), "write")
		return w
	}
	if recv := sig.Recv(); recv != nil && types.IsInterface(recv.Type()) && ctxArg == 0 &&
		inModule(path, c.module) && hasVerb(fn.Name(), writeVerbs...) && !cacheSet(recv.Type(), fn.Name()) && !Observability(recv.Type()) {
		w.Kind = kindOf(fn.Name(), "write")
		w.Adds = interfaceAdds(fn.Name())
		return w
	}
	return nil
}

func (c *Result) factOf(fn *types.Func) *WritesFact {
	if f, ok := c.facts[fn]; ok {
		return f
	}
	if fn.Pkg() == c.pass.Pkg {
		return nil
	}
	var f WritesFact
	if c.pass.ImportObjectFact(fn, &f) {
		return &f
	}
	return nil
}

func CalleeText(call *ast.CallExpr) string {
	fun := astutil.Unparen(call.Fun)
	if ix, ok := fun.(*ast.IndexExpr); ok {
		fun = ix.X
	}
	s := types.ExprString(fun)
	if len(s) > 48 {
		if sel, ok := fun.(*ast.SelectorExpr); ok {
			s = rootText(sel.X) + "..." + sel.Sel.Name
		}
	}
	return s
}

// rootText renders the start of a call chain: db in db.WithContext(ctx).Model(x).
func rootText(e ast.Expr) string {
	for {
		switch x := astutil.Unparen(e).(type) {
		case *ast.CallExpr:
			e = x.Fun
		case *ast.SelectorExpr:
			if _, ok := astutil.Unparen(x.X).(*ast.Ident); ok {
				return types.ExprString(x)
			}
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		default:
			return types.ExprString(x)
		}
	}
}

// grpcVerbs are the RPC names that change state, by the API design
// convention generated clients follow (Create, Update, Delete, ...; Respond
// and Complete report a task's outcome to the server).
var grpcVerbs = []string{
	"Create", "Update", "Delete", "Set", "Put", "Insert", "Upsert", "Remove", "Ack", "Nack",
	"Publish", "Send", "Enqueue", "Release", "Complete", "Finish", "Fail", "Mark", "Commit",
	"Respond", "Report", "Cancel", "Terminate", "Signal",
}

// grpcMethod reports a method of a generated gRPC client: a method whose
// last parameter is ...grpc.CallOption.
func grpcMethod(sig *types.Signature) bool {
	if sig.Recv() == nil || !sig.Variadic() {
		return false
	}
	last, ok := sig.Params().At(sig.Params().Len() - 1).Type().(*types.Slice)
	if !ok {
		return false
	}
	n, ok := types.Unalias(last.Elem()).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "google.golang.org/grpc" && n.Obj().Name() == "CallOption"
}

// cacheSet reports a Set or Put on an interface named for a cache: a cache
// write that fails loses nothing.
func cacheSet(recv types.Type, name string) bool {
	n, ok := types.Unalias(recv).(*types.Named)
	return ok && strings.Contains(strings.ToLower(n.Obj().Name()), "cache") && hasVerb(name, "Set", "Put", "Store", "Save", "Delete", "Remove")
}

// Observability reports an interface named for logging, tracing or
// metrics (a word of its name: Logger, MetricsClient, SpanRecorder): what
// it records after expiry is not work that must happen.
func Observability(recv types.Type) bool {
	n, ok := types.Unalias(recv).(*types.Named)
	if !ok {
		return false
	}
	for _, w := range camelWords(n.Obj().Name()) {
		switch strings.ToLower(w) {
		case "log", "logs", "logger", "logging", "metric", "metrics", "meter", "counter", "gauge",
			"histogram", "stats", "statsd", "trace", "tracer", "tracing", "span", "telemetry",
			"monitor", "recorder", "observer", "instrumentation":
			return true
		}
	}
	return false
}

// camelWords splits MetricsClient into Metrics, Client.
func camelWords(s string) []string {
	var words []string
	start := 0
	rs := []rune(s)
	for i := 1; i < len(rs); i++ {
		if unicode.IsUpper(rs[i]) && (unicode.IsLower(rs[i-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1])) {
			words = append(words, string(rs[start:i]))
			start = i
		}
	}
	return append(words, string(rs[start:]))
}

// writeVerbs are the names that write, for interfaces of the project.
var writeVerbs = []string{
	"Exec", "Update", "Set", "Save", "Put", "Insert", "Upsert", "Delete", "Remove",
	"Ack", "Nack", "Publish", "Send", "Enqueue", "Requeue", "Release", "Unlock",
	"Rollback", "Complete", "Finish", "Fail", "Mark", "Commit", "Store", "Write",
	"Add", "Append", "Create", "Flush", "Persist", "Upload",
}

// hasVerb reports whether name is one of verbs, alone or followed by
// another word (MarkDone, UpdateStatus), but not a longer word (Settings,
// Updated is fine: a verb's past tense is still that verb's write).
func hasVerb(name string, verbs ...string) bool {
	for _, v := range verbs {
		if name == v {
			return true
		}
		if strings.HasPrefix(name, v) {
			r := rune(name[len(v)])
			if unicode.IsUpper(r) || unicode.IsDigit(r) || r == '_' {
				return true
			}
		}
	}
	return false
}

// kindOf names the work from the function's name, else from fallback.
func kindOf(name, fallback string) string {
	switch {
	case strings.Contains(name, "Status") || strings.Contains(name, "State") ||
		hasVerb(name, "Mark", "Complete", "Finish", "Fail", "Finalize", "Respond", "Report"):
		return "status write"
	case hasVerb(name, "Release", "Unlock", "UnlockContext", "Revoke", "Resign"):
		return "release"
	case hasVerb(name, "Lock", "TryLock", "Acquire"):
		return "lock"
	case hasVerb(name, "Ack", "XAck", "DoubleAck", "CommitMessages"):
		return "ack"
	case hasVerb(name, "Nack", "Nak"):
		return "nack"
	case hasVerb(name, "Publish", "SPublish", "Send", "Enqueue", "EnqueueContext", "Requeue", "XAdd", "LPush", "RPush", "WriteMessages", "PublishWithContext"):
		return "publish"
	case hasVerb(name, "Delete", "Del", "Remove", "Unlink", "XDel", "HDel", "ZRem", "SRem", "LRem"):
		return "delete"
	case hasVerb(name, "Commit", "CommitTransaction"):
		return "commit"
	case hasVerb(name, "Rollback", "AbortTransaction"):
		return "rollback"
	case name == "Shutdown":
		return "shutdown"
	}
	if fallback != "" {
		return fallback
	}
	return "write"
}

// redisWrites are the go-redis commands that change data.
var redisWrites = map[string]bool{
	"Set": true, "SetNX": true, "SetXX": true, "SetEx": true, "SetArgs": true, "SetRange": true, "SetBit": true,
	"MSet": true, "MSetNX": true, "GetSet": true, "GetDel": true, "GetEx": true, "Append": true,
	"Del": true, "Unlink": true, "Expire": true, "ExpireAt": true, "PExpire": true, "PExpireAt": true, "Persist": true,
	"Rename": true, "RenameNX": true, "Incr": true, "IncrBy": true, "IncrByFloat": true, "Decr": true, "DecrBy": true,
	"HSet": true, "HMSet": true, "HSetNX": true, "HDel": true, "HIncrBy": true, "HIncrByFloat": true,
	"LPush": true, "RPush": true, "LPushX": true, "RPushX": true, "LRem": true, "LSet": true, "LTrim": true,
	"LInsert": true, "LMove": true, "RPopLPush": true,
	"SAdd": true, "SRem": true, "SMove": true,
	"ZAdd": true, "ZAddNX": true, "ZAddXX": true, "ZAddArgs": true, "ZIncrBy": true, "ZRem": true,
	"ZRemRangeByScore": true, "ZRemRangeByRank": true, "ZRemRangeByLex": true,
	"XAdd": true, "XAck": true, "XDel": true, "XTrimMaxLen": true, "XTrimMinID": true, "XClaim": true, "XAutoClaim": true,
	"Publish": true, "SPublish": true, "Eval": true, "EvalSha": true, "Run": true,
	"Exec": true, "Pipelined": true, "TxPipelined": true, "Watch": true,
}

// sqlWrite reports whether a constant query changes data.
func sqlWrite(e ast.Expr, info *types.Info) bool {
	tv, ok := info.Types[e]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
		return false
	}
	q := strings.ToUpper(strings.TrimSpace(constant.StringVal(tv.Value)))
	for strings.HasPrefix(q, "--") {
		if i := strings.IndexByte(q, '\n'); i >= 0 {
			q = strings.TrimSpace(q[i+1:])
		} else {
			return false
		}
	}
	if strings.HasPrefix(q, "WITH") {
		return strings.Contains(q, "INSERT ") || strings.Contains(q, "UPDATE ") || strings.Contains(q, "DELETE ")
	}
	for _, v := range []string{"INSERT", "UPDATE", "DELETE", "MERGE", "UPSERT", "REPLACE"} {
		if strings.HasPrefix(q, v) {
			return true
		}
	}
	return false
}

func hasPrefixAny(path string, prefixes ...string) bool {
	for _, p := range prefixes {
		if path == p || strings.HasPrefix(path, p+"/") {
			return true
		}
	}
	return false
}

// Known decides for the well-known store and queue packages: the kind of
// work, "" when the call is not a write; table is false for packages it
// does not know (their facts and the interface rule decide).
func Known(path, recv, name string, call *ast.CallExpr, info *types.Info) (kind string, table bool) {
	query := func(i int) bool { return i < len(call.Args) && sqlWrite(call.Args[i], info) }
	table = true
	switch {
	case path == "database/sql":
		switch name {
		case "ExecContext", "BeginTx":
			return "write", true
		case "QueryContext", "QueryRowContext":
			if recv != "Stmt" && query(1) {
				return "write", true
			}
		}
	case hasPrefixAny(path, "github.com/jackc/pgx/v4", "github.com/jackc/pgx/v5"):
		switch name {
		case "Exec", "Begin", "BeginTx", "BeginFunc", "BeginTxFunc", "CopyFrom", "SendBatch":
			return "write", true
		case "Commit":
			return "commit", true
		case "Query", "QueryRow":
			if query(1) {
				return "write", true
			}
		}
		// Tx.Rollback(ctx) on a done context closes the connection, which
		// rolls the transaction back anyway: not reported.
	case hasPrefixAny(path, "github.com/jmoiron/sqlx"):
		switch name {
		case "ExecContext", "NamedExecContext", "MustExecContext", "BeginTxx", "MustBeginTx":
			return "write", true
		case "QueryRowxContext", "QueryxContext", "GetContext", "SelectContext":
			if query(1) {
				return "write", true
			}
		}
	case hasPrefixAny(path, "github.com/redis/go-redis/v9", "github.com/go-redis/redis/v8", "github.com/go-redis/redis/v9"):
		if redisWrites[name] && (name != "Run" || recv == "Script") {
			return kindOf(name, "write"), true
		}
	case hasPrefixAny(path, "go.mongodb.org/mongo-driver/mongo", "go.mongodb.org/mongo-driver/v2/mongo"):
		if hasVerb(name, "Insert", "Update", "Replace", "Delete", "BulkWrite", "FindOneAndUpdate", "FindOneAndReplace", "FindOneAndDelete", "CommitTransaction", "WithTransaction") {
			return kindOf(name, "write"), true
		}
	case path == "github.com/segmentio/kafka-go":
		if name == "WriteMessages" || name == "CommitMessages" {
			return kindOf(name, ""), true
		}
	case path == "github.com/rabbitmq/amqp091-go" || path == "github.com/streadway/amqp":
		if strings.HasPrefix(name, "Publish") {
			return "publish", true
		}
	case hasPrefixAny(path, "github.com/nats-io/nats.go/jetstream"):
		if hasVerb(name, "Publish", "PublishMsg", "DoubleAck", "Put", "PutString", "PutBytes", "Update", "Create", "Delete", "Purge") {
			return kindOf(name, "write"), true
		}
	case hasPrefixAny(path, "cloud.google.com/go/pubsub", "cloud.google.com/go/pubsub/v2"):
		if name == "Publish" {
			return "publish", true
		}
	case strings.HasPrefix(path, "github.com/aws/aws-sdk-go-v2/service/"):
		if hasVerb(name, "Put", "Update", "Delete", "Send", "SendMessage", "ChangeMessageVisibility", "BatchWrite", "BatchWriteItem", "TransactWrite", "TransactWriteItems", "CompleteMultipartUpload", "Publish") {
			return kindOf(name, "write"), true
		}
	case hasPrefixAny(path, "go.etcd.io/etcd/client/v3"):
		switch name {
		case "Put", "Delete", "Txn", "Proclaim":
			return kindOf(name, "write"), true
		case "Revoke", "Unlock", "Resign":
			return "release", true
		}
	case strings.HasPrefix(path, "k8s.io/client-go/kubernetes/typed/") || hasPrefixAny(path, "k8s.io/client-go/dynamic", "k8s.io/client-go/metadata", "sigs.k8s.io/controller-runtime/pkg/client"):
		if hasVerb(name, "Create", "Update", "UpdateStatus", "Patch", "Apply", "ApplyStatus", "Delete", "DeleteCollection", "DeleteAllOf") {
			return kindOf(name, "write"), true
		}
	case hasPrefixAny(path, "github.com/riverqueue/river"):
		if hasVerb(name, "Insert", "InsertTx", "InsertMany", "InsertManyTx", "JobCancel", "JobCancelTx", "JobRetry", "JobRetryTx", "JobDelete", "JobDeleteTx", "JobCompleteTx") {
			return kindOf(name, "write"), true
		}
	case path == "github.com/hibiken/asynq":
		if name == "EnqueueContext" {
			return "publish", true
		}
	case hasPrefixAny(path, "go.temporal.io/sdk/client"):
		if hasVerb(name, "SignalWorkflow", "SignalWithStartWorkflow", "CompleteActivity", "CompleteActivityByID", "CancelWorkflow", "TerminateWorkflow") {
			return kindOf(name, "write"), true
		}
	case path == "github.com/bsm/redislock":
		switch name {
		case "Release":
			return "release", true
		case "Refresh":
			return "write", true
		}
	case hasPrefixAny(path, "github.com/go-redsync/redsync/v4"):
		switch name {
		case "UnlockContext":
			return "release", true
		case "ExtendContext":
			return "write", true
		}
	case hasPrefixAny(path, "cloud.google.com/go/firestore"):
		if hasVerb(name, "Set", "Update", "Delete", "Create", "Commit", "RunTransaction") {
			return kindOf(name, "write"), true
		}
	case hasPrefixAny(path, "cloud.google.com/go/spanner"):
		if hasVerb(name, "Apply", "ReadWriteTransaction") {
			return "write", true
		}
	case path == "net/http":
		if recv == "Server" && name == "Shutdown" {
			return "shutdown", true
		}
	default:
		table = false
	}
	return "", table
}

// gormWrite recognises a gorm write, which takes its context from a
// WithContext call earlier in the chain:
// db.WithContext(ctx).Model(&Job{}).Where("id = ?", id).Update("state", "failed").
func (c *Result) gormWrite(call *ast.CallExpr, fn *types.Func) *Write {
	if fn.Pkg().Path() != "gorm.io/gorm" || retrymodel.RecvName(fn) != "DB" {
		return nil
	}
	switch fn.Name() {
	case "Create", "CreateInBatches", "Save", "Update", "Updates", "UpdateColumn", "UpdateColumns", "Delete", "Exec", "FirstOrCreate":
	default:
		return nil
	}
	sel, ok := astutil.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	for x := sel.X; ; {
		inner, ok := astutil.Unparen(x).(*ast.CallExpr)
		if !ok {
			return nil
		}
		isel, ok := astutil.Unparen(inner.Fun).(*ast.SelectorExpr)
		if !ok {
			return nil
		}
		if isel.Sel.Name == "WithContext" && len(inner.Args) == 1 {
			return &Write{Call: call, Ctx: inner.Args[0], Callee: CalleeText(call), Kind: kindOf(fn.Name(), "write"), Store: fn.Pkg().Path()}
		}
		x = isel.X
	}
}
