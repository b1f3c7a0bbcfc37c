package effects

import (
	"go/ast"
	"go/constant"
	"go/types"
	"strings"
)

// adds decides, for a write of a known store or queue package, whether
// doing it twice leaves two records: a row inserted, a message published,
// an element pushed, a counter incremented. A status update, a SET, a
// delete or a release done twice leaves what one leaves, so a retry that
// repeats it costs a request, not a duplicate.
func adds(path, name string, call *ast.CallExpr, info *types.Info) bool {
	insert := func(i int) bool { return i < len(call.Args) && sqlInsert(call.Args[i], info) }
	switch {
	case path == "database/sql":
		switch name {
		case "ExecContext", "QueryContext", "QueryRowContext":
			return insert(1)
		}
	case hasPrefixAny(path, "github.com/jackc/pgx/v4", "github.com/jackc/pgx/v5"):
		switch name {
		case "Exec", "Query", "QueryRow":
			return insert(1)
		case "CopyFrom":
			return true
		}
	case hasPrefixAny(path, "github.com/jmoiron/sqlx"):
		switch name {
		case "ExecContext", "NamedExecContext", "MustExecContext", "QueryRowxContext", "QueryxContext", "GetContext", "SelectContext":
			return insert(1)
		}
	case hasPrefixAny(path, "github.com/redis/go-redis/v9", "github.com/go-redis/redis/v8", "github.com/go-redis/redis/v9"):
		switch name {
		case "Incr", "IncrBy", "IncrByFloat", "Decr", "DecrBy", "HIncrBy", "HIncrByFloat", "ZIncrBy",
			"LPush", "RPush", "LPushX", "RPushX", "LInsert", "XAdd", "Append", "Publish", "SPublish":
			return true
		}
	case hasPrefixAny(path, "go.mongodb.org/mongo-driver/mongo", "go.mongodb.org/mongo-driver/v2/mongo"):
		return name == "InsertOne" || name == "InsertMany"
	case path == "github.com/segmentio/kafka-go":
		return name == "WriteMessages"
	case path == "github.com/rabbitmq/amqp091-go" || path == "github.com/streadway/amqp":
		return strings.HasPrefix(name, "Publish")
	case hasPrefixAny(path, "github.com/nats-io/nats.go/jetstream"):
		return name == "Publish" || name == "PublishMsg"
	case hasPrefixAny(path, "cloud.google.com/go/pubsub", "cloud.google.com/go/pubsub/v2"):
		return name == "Publish"
	case strings.HasPrefix(path, "github.com/aws/aws-sdk-go-v2/service/"):
		switch name {
		case "SendMessage", "SendMessageBatch", "Publish", "PublishBatch", "PutRecord", "PutRecords", "PutEvents":
			return true
		}
	case hasPrefixAny(path, "github.com/riverqueue/river"):
		return hasVerb(name, "Insert", "InsertTx", "InsertMany", "InsertManyTx")
	case path == "github.com/hibiken/asynq":
		return name == "EnqueueContext"
	case path == "gorm.io/gorm":
		return name == "Create" || name == "CreateInBatches"
	}
	return false
}

// sqlInsert reports a constant query that inserts without folding a
// repeat into the row already there (ON CONFLICT, INSERT IGNORE, ON
// DUPLICATE KEY UPDATE, INSERT OR REPLACE are upserts: a second run
// changes nothing new).
func sqlInsert(e ast.Expr, info *types.Info) bool {
	tv, ok := info.Types[e]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
		return false
	}
	q := strings.Join(strings.Fields(strings.ToUpper(constant.StringVal(tv.Value))), " ")
	if !strings.HasPrefix(q, "INSERT ") && !(strings.HasPrefix(q, "WITH ") && strings.Contains(q, " INSERT ")) {
		return false
	}
	for _, folds := range []string{"ON CONFLICT", "INSERT IGNORE", "ON DUPLICATE KEY", "INSERT OR REPLACE", "INSERT OR IGNORE"} {
		if strings.Contains(q, folds) {
			return false
		}
	}
	return true
}

// interfaceAdds: a project interface's Publish or Enqueue sends a new
// message each time it is called.
func interfaceAdds(name string) bool {
	return hasVerb(name, "Publish", "Enqueue")
}
