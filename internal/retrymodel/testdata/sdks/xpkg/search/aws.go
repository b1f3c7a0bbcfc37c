package search

import (
	"context"

	"example.com/rm/sdks/xpkg/llm"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

func Fetch(ctx context.Context) error {
	c, err := llm.S3(ctx)
	if err != nil {
		return err
	}
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("b")}) // want `^aws s3\.GetObject kind=sdk attempts=1 .*assumed=false client=- .*notes=client built at llm/aws.go:16 \(by llm\.S3\)`
	return err
}
