// AWS's failure records as its documentation shows them (Lambda "Capturing records of asynchronous
// invocations", EventBridge "Using dead-letter queues", SNS "Amazon SNS message and JSON formats"),
// with their example values, for the SQS connector's unit and integration tests.
import type { MessageAttributeValue } from '@aws-sdk/client-sqs';

export interface AwsShape {
  body: string;
  attributes?: Record<string, MessageAttributeValue>;
}

const s = (v: string): MessageAttributeValue => ({ DataType: 'String', StringValue: v });

/**
 * The original event exactly as it sits in a Lambda record: key order, spacing and escapes kept, so a
 * redrive that re-serialised the parsed JSON would not be byte-exact.
 */
export const LAMBDA_EVENT_TEXT =
  '{ "ORDER_IDS": [ "9e07af03-ce31-4ff3-xmpl-36dce652cb4f", "637de236-e7b2-464e-xmpl-baf57f86bb53" ],  "note": "caf\\u00e9 \\"x\\" \u00e9", "total": 1.50e1 }';

/** A Lambda on-failure destination record (the function threw; Node.js reports `trace`, Python `stackTrace`). */
export function lambdaDestinationRecord(event = LAMBDA_EVENT_TEXT, requestId = 'e4b46cbf-b738-xmpl-8880-a18cdf61200e'): AwsShape {
  const body = `{
    "version": "1.0",
    "timestamp": "2019-11-14T18:16:05.568Z",
    "requestContext": {
        "requestId": "${requestId}",
        "functionArn": "arn:aws:lambda:us-east-2:123456789012:function:my-function:$LATEST",
        "condition": "RetriesExhausted",
        "approximateInvokeCount": 3
    },
    "requestPayload": ${event},
    "responseContext": {
        "statusCode": 200,
        "executedVersion": "$LATEST",
        "functionError": "Unhandled"
    },
    "responsePayload": {
        "errorType": "OrderRejected",
        "errorMessage": "order 9e07af03 has no customer",
        "stackTrace": ["  File \\"/var/task/lambda_function.py\\", line 12, in lambda_handler", "    raise OrderRejected(order)"]
    }
}`;
  return { body };
}

/** The documented record of a function that timed out: no errorType, only Lambda's message. */
export const LAMBDA_TIMEOUT_RECORD: AwsShape = {
  body: JSON.stringify({
    version: '1.0',
    timestamp: '2019-11-14T18:16:05.568Z',
    requestContext: {
      requestId: 'e4b46cbf-b738-xmpl-8880-a18cdf61200e',
      functionArn: 'arn:aws:lambda:us-east-2:123456789012:function:my-function:$LATEST',
      condition: 'RetriesExhausted',
      approximateInvokeCount: 3,
    },
    requestPayload: { ORDER_IDS: ['9e07af03-ce31-4ff3-xmpl-36dce652cb4f'] },
    responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
    responsePayload: { errorMessage: 'RequestId: e4b46cbf-b738-xmpl-8880-a18cdf61200e Process exited before completing request' },
  }),
};

/** Lambda's classic DLQ: the event as the body, the failure in three attributes. */
export function lambdaDlqMessage(event = '{"orderId":"o-17","amount":42}'): AwsShape {
  return {
    body: event,
    attributes: {
      RequestID: s('d4d3a0f5-8b5e-4b4e-9c36-0c5b7c1e2f10'),
      ErrorCode: s('200'),
      ErrorMessage: s(
        '{"errorType":"TypeError","errorMessage":"Cannot read properties of undefined (reading \'id\')","trace":["TypeError: Cannot read properties of undefined (reading \'id\')","    at Runtime.handler (/var/task/index.js:3:30)"]}',
      ),
    },
  };
}

/** An EventBridge target's DLQ: the event as the body, the rule, target and error as attributes. */
export function eventBridgeDlqMessage(detail = '{"orderId":"o-18"}'): AwsShape {
  return {
    body: `{"version":"0","id":"6a7e8feb-b491-4cf7-a9f1-bf3703467718","detail-type":"Order Placed","source":"com.example.orders","account":"123456789012","time":"2024-05-15T18:43:48Z","region":"us-east-1","resources":[],"detail":${detail}}`,
    attributes: {
      RULE_ARN: s('arn:aws:events:us-east-1:123456789012:rule/orders-to-fulfilment'),
      TARGET_ARN: s('arn:aws:lambda:us-east-1:123456789012:function:fulfil-order'),
      ERROR_CODE: s('SDK_CLIENT_ERROR'),
      ERROR_MESSAGE: s('Unable to invoke Lambda function: The function is not found'),
      EXHAUSTED_RETRY_CONDITION: s('MaximumRetryAttempts'),
      RETRY_ATTEMPTS: s('2'),
    },
  };
}

/** An SNS subscription's DLQ with raw delivery off: the SNS notification JSON around the published text. */
export function snsDlqNotification(message = 'Hello world!'): AwsShape {
  return {
    body: JSON.stringify(
      {
        Type: 'Notification',
        MessageId: '22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324',
        TopicArn: 'arn:aws:sns:us-west-2:123456789012:MyTopic',
        Subject: 'My First Message',
        Message: message,
        Timestamp: '2012-05-02T00:54:06.655Z',
        SignatureVersion: '1',
        Signature:
          'EXAMPLEw6JRNwm1LFQL4ICB0bnXrdB8ClRMTQFGBqwLpGbM78tJ4etTwC5zU7O3tS6tGpey3ejedNdOJ+1fkIp9F2/LmNVKb5aFlYq+9rk9ZiPph5YlLmWsDcyC5T+Sy9/umic5S0UQc2PEtgdpVBahwNOdMW4JPwk0kAJJztnc=',
        SigningCertURL: 'https://sns.us-west-2.amazonaws.com/SimpleNotificationService-f3ecfb7224c7233fe7bb5f59f96de52f.pem',
        UnsubscribeURL:
          'https://sns.us-west-2.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=arn:aws:sns:us-west-2:123456789012:MyTopic:c9135db0-26c4-47ec-8998-413945fb5a96',
        MessageAttributes: { tenant: { Type: 'String', Value: 'acme' }, priority: { Type: 'Number', Value: '3' } },
      },
      null,
      2,
    ),
  };
}
