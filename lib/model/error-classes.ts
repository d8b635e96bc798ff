// What a dead letter's error says about its cause, per runtime: transient (the downstream failed:
// HTTP 5xx and 429, timeouts, refused or reset connections, DNS, deadlocks and lock timeouts,
// throttling, "unavailable") or permanent (the message is bad: parse, schema, validation, not found,
// constraint violations). The runbook's first branch, poison or outage (seed 004 §9), read from the
// errors rather than from their number. Lists of names and words are kept here, one per runtime, as
// frame-libraries.ts keeps the library frames; classify-error.ts applies them.

export type ErrorClass = 'transient' | 'permanent' | 'unknown';
export const ERROR_CLASSES = ['transient', 'permanent', 'unknown'] as const satisfies readonly ErrorClass[];

export interface ErrorRule {
  /** Unique, for the tests and for telling which entry decided. */
  name: string;
  class: Exclude<ErrorClass, 'unknown'>;
  /** Exception or error type names, compared case-insensitively with the type's last segment (after `.`, `::`, `\`, `$`). */
  types?: readonly string[];
  /** Words of the message that name the cause. */
  message?: RegExp;
}

/** HTTP statuses, from any runtime's client: read only where the message says it is a status. */
export const HTTP_TRANSIENT_STATUS = /^(?:5\d\d|429|408)$/;
export const HTTP_PERMANENT_STATUS = /^(?:400|404|409|410|413|415|422)$/;

/** Words that are the same in every runtime (drivers, brokers, cloud SDKs print them verbatim). */
const COMMON: ErrorRule[] = [
  { name: 'common.timeout', class: 'transient', message: /\btim(?:ed|es)?[ -]?out\b|\btimeout\b|\bETIMEDOUT\b|\bdeadline (?:exceeded|has elapsed)\b/i },
  {
    name: 'common.connection-refused',
    class: 'transient',
    message: /\bconnection refused\b|\bECONNREFUSED\b|\bcould not connect\b|\bunable to connect\b|\bfailed to connect\b/i,
  },
  {
    name: 'common.connection-reset',
    class: 'transient',
    message: /\bconnection (?:reset|aborted|closed)\b|\bECONNRESET\b|\bbroken pipe\b|\bEPIPE\b|\bserver closed the connection\b/i,
  },
  {
    name: 'common.network-unreachable',
    class: 'transient',
    message: /\b(?:network|host) (?:is )?unreachable\b|\bE(?:HOST|NET)UNREACH\b|\bno route to host\b/i,
  },
  {
    name: 'common.dns',
    class: 'transient',
    message:
      /\bEAI_AGAIN\b|\bENOTFOUND\b|\bno such host\b|\bgetaddrinfo\b|\bname or service not known\b|\btemporary failure in name resolution\b|\bname resolution\b|\bunknown host\b|\bhost not found\b/i,
  },
  {
    name: 'common.deadlock',
    class: 'transient',
    message: /\bdeadlock|\block wait timeout\b|\bcould not obtain lock\b|\block not available\b|\bcould not serialize access\b|\bserialization failure\b/i,
  },
  {
    name: 'common.throttling',
    class: 'transient',
    message:
      /\bthrottl|\brate[ -]?limit|\btoo many requests\b|\bquota exceeded\b|\bslow ?down\b|\bRESOURCE_EXHAUSTED\b|\btoo many connections\b|\btoo many clients\b/i,
  },
  {
    name: 'common.unavailable',
    class: 'transient',
    message:
      /\bunavailable\b|\bbad gateway\b|\bcircuit breaker is open\b|\bcircuit is open\b|\btry again later\b|\bis starting up\b|\bis shutting down\b|\bpool (?:is )?exhausted\b/i,
  },
  {
    name: 'common.parse',
    class: 'permanent',
    message:
      /\bunexpected token\b|\bunexpected end of (?:json )?input\b|\b(?:failed to|cannot|could not|unable to) (?:parse|decode|deserialize)\b|\bparse error\b|\bmalformed\b|\binvalid json\b|\bnot valid json\b|\binvalid character\b|\binvalid input syntax\b/i,
  },
  {
    name: 'common.schema',
    class: 'permanent',
    message:
      /\bschema\b|\b(?:unknown|unrecognized) (?:fields?|propert(?:y|ies))\b|\bmissing (?:required )?(?:field|property|key)\b|\brequired (?:field|property)\b|\bis required\b|\btype mismatch\b/i,
  },
  {
    name: 'common.validation',
    class: 'permanent',
    message:
      /\bvalidation (?:failed|error)\b|\binvalid (?:value|argument|format|payload|request|input)\b|\bmust be (?:a |an )?(?:positive|negative|integer|number|string|non-empty|one of|at least|at most|greater|less|valid)\b/i,
  },
  {
    name: 'common.not-found',
    class: 'permanent',
    message: /\bnot found\b|\bdoes not exist\b|\bno rows in result set\b|\bno such (?:file|key|record|entity|user|order)\b/i,
  },
  { name: 'common.constraint', class: 'permanent', message: /\bconstraint\b|\bduplicate key\b|\bduplicate entry\b|\balready exists\b|\bunique violation\b/i },
];

/** Node and the JS runtimes (Bun, Deno), with their common HTTP clients and ORMs. */
const NODE: ErrorRule[] = [
  {
    name: 'node.timeout',
    class: 'transient',
    types: ['TimeoutError', 'AbortError', 'ETIMEDOUT', 'ESOCKETTIMEDOUT', 'KnexTimeoutError', 'SequelizeConnectionAcquireTimeoutError'],
  },
  {
    name: 'node.connection',
    class: 'transient',
    types: [
      'FetchError',
      'SequelizeConnectionError',
      'SequelizeConnectionRefusedError',
      'MongoNetworkError',
      'MongoServerSelectionError',
      'RedisConnectionError',
    ],
  },
  {
    name: 'node.socket-hang-up',
    class: 'transient',
    message: /\bsocket hang up\b|\bfetch failed\b|\bother side closed\b|\bUND_ERR_(?:SOCKET|CONNECT_TIMEOUT|HEADERS_TIMEOUT)\b/,
  },
  { name: 'node.prisma-transient', class: 'transient', message: /\bP(?:1001|1002|1008|1017|2024|2034)\b/ },
  { name: 'node.parse', class: 'permanent', types: ['SyntaxError', 'JSONError'] },
  {
    name: 'node.validation',
    class: 'permanent',
    types: [
      'ZodError',
      'ValidationError',
      'SequelizeValidationError',
      'SequelizeUniqueConstraintError',
      'SequelizeForeignKeyConstraintError',
      'AjvValidationError',
    ],
  },
  { name: 'node.prisma-permanent', class: 'permanent', message: /\bP(?:2000|2002|2003|2011|2025)\b/ },
];

/** Java, Kotlin, Scala: the JDK, Spring, Jackson, JDBC, JPA, AWS SDK, Feign. */
const JVM: ErrorRule[] = [
  {
    name: 'jvm.network',
    class: 'transient',
    types: [
      'ConnectException',
      'SocketTimeoutException',
      'UnknownHostException',
      'NoRouteToHostException',
      'SocketException',
      'HttpTimeoutException',
      'ResourceAccessException',
      'ConnectTimeoutException',
      'ReadTimeoutException',
    ],
  },
  {
    name: 'jvm.transient-data',
    class: 'transient',
    types: [
      'TimeoutException',
      'DeadlockLoserDataAccessException',
      'CannotAcquireLockException',
      'PessimisticLockingFailureException',
      'QueryTimeoutException',
      'TransientDataAccessException',
      'TransientDataAccessResourceException',
      'CannotGetJdbcConnectionException',
      'SQLTransientConnectionException',
      'SQLTransientException',
      'SQLTimeoutException',
      'LockTimeoutException',
      'CannotCreateTransactionException',
      'RecoverableDataAccessException',
      'OptimisticLockingFailureException',
      'ObjectOptimisticLockingFailureException',
    ],
  },
  {
    name: 'jvm.http-server',
    class: 'transient',
    types: [
      'HttpServerErrorException',
      'ServiceUnavailable',
      'BadGateway',
      'GatewayTimeout',
      'InternalServerError',
      'TooManyRequests',
      'RetryableException',
      'CallNotPermittedException',
    ],
  },
  {
    name: 'jvm.throttling',
    class: 'transient',
    types: ['ThrottlingException', 'ProvisionedThroughputExceededException', 'RequestLimitExceededException', 'LimitExceededException', 'SdkClientException'],
  },
  {
    name: 'jvm.parse',
    class: 'permanent',
    types: [
      'JsonParseException',
      'JsonMappingException',
      'MismatchedInputException',
      'UnrecognizedPropertyException',
      'InvalidFormatException',
      'InvalidDefinitionException',
      'JsonProcessingException',
      'HttpMessageNotReadableException',
      'NumberFormatException',
      'DateTimeParseException',
      'SerializationException',
    ],
  },
  {
    name: 'jvm.validation',
    class: 'permanent',
    types: [
      'ConstraintViolationException',
      'MethodArgumentNotValidException',
      'DataIntegrityViolationException',
      'DuplicateKeyException',
      'EntityNotFoundException',
      'EmptyResultDataAccessException',
      'NoSuchElementException',
      'BadRequest',
      'NotFound',
      'UnprocessableEntity',
      'Conflict',
    ],
  },
];

/** Python: the standard library, requests, httpx, urllib3, psycopg, SQLAlchemy, Django, pydantic, boto. */
const PYTHON: ErrorRule[] = [
  {
    name: 'python.network',
    class: 'transient',
    types: [
      'ConnectionError',
      'ConnectionRefusedError',
      'ConnectionResetError',
      'ConnectionAbortedError',
      'BrokenPipeError',
      'ConnectTimeout',
      'ReadTimeout',
      'ConnectError',
      'PoolTimeout',
      'RemoteProtocolError',
      'NewConnectionError',
      'MaxRetryError',
      'gaierror',
      'timeout',
      'TimeoutError',
      'Timeout',
    ],
  },
  {
    name: 'python.database',
    class: 'transient',
    types: ['DeadlockDetected', 'LockNotAvailable', 'SerializationFailure', 'AdminShutdown', 'CannotConnectNow', 'TooManyConnections'],
  },
  { name: 'python.throttling', class: 'transient', types: ['ThrottlingException', 'SlowDown', 'ServiceUnavailable', 'TooManyRequests'] },
  { name: 'python.parse', class: 'permanent', types: ['JSONDecodeError', 'UnicodeDecodeError', 'DecodeError', 'ParserError'] },
  {
    name: 'python.validation',
    class: 'permanent',
    types: [
      'ValidationError',
      'IntegrityError',
      'UniqueViolation',
      'ForeignKeyViolation',
      'NotNullViolation',
      'CheckViolation',
      'DoesNotExist',
      'ObjectDoesNotExist',
      'NoResultFound',
      'InvalidTextRepresentation',
      'DataError',
    ],
  },
];

/** Go: the standard library's and the common drivers' error texts (Go errors rarely carry a type). */
const GO: ErrorRule[] = [
  {
    name: 'go.network',
    class: 'transient',
    message: /\bi\/o timeout\b|\bcontext deadline exceeded\b|\bconnection reset by peer\b|\bunexpected EOF\b|\bTLS handshake timeout\b|\bserver misbehaving\b/,
  },
  {
    name: 'go.parse',
    class: 'permanent',
    message: /\bjson: cannot unmarshal\b|\bstrconv\.\w+: parsing\b|\bproto: cannot parse\b|\bunexpected end of JSON input\b/,
  },
];

/** .NET: the BCL, HttpClient, SqlClient, Npgsql, EF Core, Polly, System.Text.Json, Newtonsoft, FluentValidation. */
const DOTNET: ErrorRule[] = [
  {
    name: 'dotnet.network',
    class: 'transient',
    types: [
      'TimeoutException',
      'TaskCanceledException',
      'SocketException',
      'IOException',
      'TimeoutRejectedException',
      'BrokenCircuitException',
      'IsolatedCircuitException',
      'NpgsqlTimeoutException',
    ],
  },
  {
    name: 'dotnet.sql',
    class: 'transient',
    message: /\bwas deadlocked on lock\b|\bTransport-level error\b|\bA network-related or instance-specific error\b|\bExecution Timeout Expired\b/i,
  },
  {
    name: 'dotnet.parse',
    class: 'permanent',
    types: ['JsonException', 'JsonReaderException', 'JsonSerializationException', 'FormatException', 'InvalidCastException'],
  },
  { name: 'dotnet.validation', class: 'permanent', types: ['ValidationException', 'DbUpdateConcurrencyException', 'KeyNotFoundException'] },
];

/** Ruby: Net::HTTP, Faraday, ActiveRecord, the pg and redis gems. */
const RUBY: ErrorRule[] = [
  {
    name: 'ruby.network',
    class: 'transient',
    types: [
      'ReadTimeout',
      'OpenTimeout',
      'WriteTimeout',
      'ECONNREFUSED',
      'ECONNRESET',
      'ETIMEDOUT',
      'EHOSTUNREACH',
      'SocketError',
      'ConnectionFailed',
      'TimeoutError',
      'ServerError',
      'TooManyRequestsError',
      'CannotConnectError',
      'ConnectionBad',
    ],
  },
  {
    name: 'ruby.database',
    class: 'transient',
    types: ['Deadlocked', 'LockWaitTimeout', 'ConnectionNotEstablished', 'ConnectionTimeoutError', 'QueryCanceled'],
  },
  { name: 'ruby.parse', class: 'permanent', types: ['ParserError', 'ParseError'] },
  {
    name: 'ruby.validation',
    class: 'permanent',
    types: [
      'RecordNotFound',
      'RecordInvalid',
      'RecordNotUnique',
      'NotNullViolation',
      'InvalidForeignKey',
      'ResourceNotFound',
      'BadRequestError',
      'UnprocessableEntityError',
    ],
  },
];

/** PHP: Guzzle, PDO, Laravel, Symfony. */
const PHP: ErrorRule[] = [
  { name: 'php.network', class: 'transient', types: ['ConnectException', 'ServerException'] },
  { name: 'php.pdo', class: 'transient', message: /\bSQLSTATE\[(?:HY000\] \[2002|HY000\] \[2006|08\w{3}|40001|40P01)\]?/ },
  { name: 'php.parse', class: 'permanent', types: ['JsonException', 'NotEncodableValueException', 'UnexpectedValueException'] },
  { name: 'php.validation', class: 'permanent', types: ['ModelNotFoundException', 'NotFoundHttpException', 'UniqueConstraintViolationException'] },
];

/** Rust: std::io, tokio, hyper, reqwest, sqlx, serde. */
const RUST: ErrorRule[] = [
  {
    name: 'rust.network',
    class: 'transient',
    types: ['Elapsed'],
    message: /\bPoolTimedOut\b|\bconnection closed before message completed\b|\bConnectionRefused\b|\bTimedOut\b/,
  },
  { name: 'rust.parse', class: 'permanent', message: /\bexpected value at line \d+ column \d+\b|\bmissing field `|\bunknown variant `|\binvalid type: \w+/ },
  { name: 'rust.not-found', class: 'permanent', message: /\bRowNotFound\b/ },
];

/** Elixir and Erlang: DBConnection, Postgrex, Mint, Finch, Jason, Ecto. */
const BEAM: ErrorRule[] = [
  {
    name: 'beam.network',
    class: 'transient',
    types: ['ConnectionError', 'TransportError'],
    message: /:econnrefused\b|:closed\b|:nxdomain\b|:ehostunreach\b|\bdeadlock_detected\b|\block_not_available\b/,
  },
  { name: 'beam.parse', class: 'permanent', types: ['DecodeError'] },
  { name: 'beam.validation', class: 'permanent', types: ['NoResultsError', 'InvalidChangesetError', 'ConstraintError', 'CastError', 'ChangeError'] },
];

/** Cloud SDKs and RPC: gRPC status names, AWS, GCP and Azure throttling codes. */
const CLOUD: ErrorRule[] = [
  { name: 'cloud.grpc-transient', class: 'transient', message: /\b(?:UNAVAILABLE|DEADLINE_EXCEEDED|ABORTED)\b|\b14 UNAVAILABLE\b/ },
  {
    name: 'cloud.aws-throttling',
    class: 'transient',
    message:
      /\b(?:RequestLimitExceeded|ProvisionedThroughputExceeded|ThrottlingException|TooManyRequestsException|RequestThrottled|ServerBusy|SlowDown|ServiceUnavailable|InternalError)\b/,
  },
  { name: 'cloud.grpc-permanent', class: 'permanent', message: /\b(?:INVALID_ARGUMENT|NOT_FOUND|ALREADY_EXISTS|FAILED_PRECONDITION)\b/ },
];

/** Per runtime, in the order they are read; each entry tested (test/unit/error-classes.test.ts). */
export const ERROR_RULES = {
  node: NODE,
  jvm: JVM,
  python: PYTHON,
  go: GO,
  dotnet: DOTNET,
  ruby: RUBY,
  php: PHP,
  rust: RUST,
  beam: BEAM,
  cloud: CLOUD,
  common: COMMON,
} as const;

/**
 * The broker's reason, read when the error says nothing: a message that expired or was pushed out by
 * a full queue was not consumed in time (the consumers or their downstream are down); one that
 * failed again after redrives is poison. The others say nothing of the cause.
 */
export const REASON_CLASSES: Partial<Record<string, Exclude<ErrorClass, 'unknown'>>> = {
  Expired: 'transient',
  MaxLength: 'transient',
  RedriveLoop: 'permanent',
};
