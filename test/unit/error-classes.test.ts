// Poison or outage from what the errors say (lib/model/error-classes.ts): every entry of every
// runtime's table has examples written in that runtime's own words, each classified by that entry.
import { describe, expect, it } from 'vitest';
import { classifyError, httpStatuses, matchesType, typeName, type ErrorToClassify } from '@/lib/clustering/classify-error';
import { ERROR_RULES, REASON_CLASSES, type ErrorRule } from '@/lib/model/error-classes';

type Example = ErrorToClassify;
const t = (type: string, message = 'failed'): Example => ({ type, message });
const m = (message: string): Example => ({ type: 'Error', message });

/** Per entry: for a type entry, one example per type name; for a message entry, messages it must match. */
const EXAMPLES: Record<string, Example[]> = {
  'common.timeout': [m('request timed out after 30000 ms'), m('Timeout awaiting response headers'), m('read ETIMEDOUT'), m('deadline has elapsed')],
  'common.connection-refused': [m('connect ECONNREFUSED 10.0.0.7:5432'), m('Connection refused (Connection refused)'), m('could not connect to server')],
  'common.connection-reset': [m('read ECONNRESET'), m('Connection reset by server'), m('write: broken pipe'), m('server closed the connection unexpectedly')],
  'common.network-unreachable': [m('connect EHOSTUNREACH 10.1.2.3:443'), m('Network is unreachable'), m('No route to host')],
  'common.dns': [
    m('getaddrinfo ENOTFOUND members.internal'),
    m('getaddrinfo EAI_AGAIN api.stripe.com'),
    m('Temporary failure in name resolution'),
    m('Name or service not known'),
  ],
  'common.deadlock': [
    m('deadlock detected'),
    m('Lock wait timeout exceeded; try restarting transaction'),
    m('could not obtain lock on row in relation "orders"'),
    m('could not serialize access due to concurrent update'),
  ],
  'common.throttling': [
    m('Rate limit exceeded, retry in 20s'),
    m('Request was throttled'),
    m('Too Many Requests'),
    m('FATAL: sorry, too many clients already'),
  ],
  'common.unavailable': [m('member service unavailable'), m('Bad Gateway'), m('Circuit breaker is open'), m('the database system is starting up')],
  'common.parse': [
    m('Unexpected token } in JSON at position 112'),
    m('Unexpected end of JSON input'),
    m('failed to parse order body'),
    m('invalid input syntax for type uuid: "abc"'),
  ],
  'common.schema': [
    m('unknown field "gift"'),
    m('event returns.cancelled has unknown fields: country, company'),
    m('missing required field "sku"'),
    m('email is required'),
    m('payload does not match schema order.v2'),
  ],
  'common.validation': [
    m('Validation failed: quantity'),
    m('quantity must be an integer, got "two"'),
    m('amount must be positive'),
    m('invalid value for currency: "XXX"'),
  ],
  'common.not-found': [m('customer cus_123 not found'), m('relation "refunds" does not exist'), m('sql: no rows in result set')],
  'common.constraint': [
    m('duplicate key value violates unique constraint "orders_pkey"'),
    m('insert or update on table "items" violates foreign key constraint'),
    m("Duplicate entry '42' for key 'PRIMARY'"),
  ],
  'node.timeout': [
    t('TimeoutError'),
    t('AbortError', 'This operation was aborted'),
    t('ETIMEDOUT'),
    t('ESOCKETTIMEDOUT'),
    t('KnexTimeoutError'),
    t('SequelizeConnectionAcquireTimeoutError'),
  ],
  'node.connection': [
    t('FetchError'),
    t('SequelizeConnectionError'),
    t('SequelizeConnectionRefusedError'),
    t('MongoNetworkError'),
    t('MongoServerSelectionError'),
    t('RedisConnectionError'),
  ],
  'node.socket-hang-up': [m('socket hang up'), m('TypeError: fetch failed'), m('other side closed'), m('UND_ERR_CONNECT_TIMEOUT')],
  'node.prisma-transient': [
    m("P1001: Can't reach database server at db:5432"),
    m('P2034: Transaction failed due to a write conflict or a deadlock'),
    m('P2024: Timed out fetching a new connection'),
  ],
  'node.parse': [t('SyntaxError', 'Unexpected token u'), t('JSONError')],
  'node.validation': [
    t('ZodError'),
    t('ValidationError'),
    t('SequelizeValidationError'),
    t('SequelizeUniqueConstraintError'),
    t('SequelizeForeignKeyConstraintError'),
    t('AjvValidationError'),
  ],
  'node.prisma-permanent': [
    m('P2002: Unique constraint failed on the fields: (`email`)'),
    m('P2025: An operation failed because it depends on one or more records that were required but not found'),
    m('P2003'),
    m('P2011'),
    m('P2000'),
  ],
  'jvm.network': [
    t('java.net.ConnectException'),
    t('java.net.SocketTimeoutException'),
    t('java.net.UnknownHostException'),
    t('java.net.NoRouteToHostException'),
    t('java.net.SocketException'),
    t('java.net.http.HttpTimeoutException'),
    t('org.springframework.web.client.ResourceAccessException'),
    t('io.netty.channel.ConnectTimeoutException'),
    t('io.netty.handler.timeout.ReadTimeoutException'),
  ],
  'jvm.transient-data': [
    t('java.util.concurrent.TimeoutException'),
    t('org.springframework.dao.DeadlockLoserDataAccessException'),
    t('org.springframework.dao.CannotAcquireLockException'),
    t('org.springframework.dao.PessimisticLockingFailureException'),
    t('org.springframework.dao.QueryTimeoutException'),
    t('org.springframework.dao.TransientDataAccessException'),
    t('org.springframework.dao.TransientDataAccessResourceException'),
    t('org.springframework.jdbc.CannotGetJdbcConnectionException'),
    t('java.sql.SQLTransientConnectionException'),
    t('java.sql.SQLTransientException'),
    t('java.sql.SQLTimeoutException'),
    t('jakarta.persistence.LockTimeoutException'),
    t('org.springframework.transaction.CannotCreateTransactionException'),
    t('org.springframework.dao.RecoverableDataAccessException'),
    t('org.springframework.dao.OptimisticLockingFailureException'),
    t('org.springframework.orm.ObjectOptimisticLockingFailureException'),
  ],
  'jvm.http-server': [
    t('org.springframework.web.client.HttpServerErrorException'),
    t('feign.FeignException$ServiceUnavailable'),
    t('feign.FeignException$BadGateway'),
    t('feign.FeignException$GatewayTimeout'),
    t('feign.FeignException$InternalServerError'),
    t('org.springframework.web.client.HttpClientErrorException$TooManyRequests'),
    t('feign.RetryableException'),
    t('io.github.resilience4j.circuitbreaker.CallNotPermittedException'),
  ],
  'jvm.throttling': [
    t('software.amazon.awssdk.services.sqs.model.ThrottlingException'),
    t('com.amazonaws.services.dynamodbv2.model.ProvisionedThroughputExceededException'),
    t('software.amazon.awssdk.services.ec2.model.RequestLimitExceededException'),
    t('software.amazon.awssdk.services.lambda.model.LimitExceededException'),
    t('software.amazon.awssdk.core.exception.SdkClientException'),
  ],
  'jvm.parse': [
    t('com.fasterxml.jackson.core.JsonParseException'),
    t('com.fasterxml.jackson.databind.JsonMappingException'),
    t('com.fasterxml.jackson.databind.exc.MismatchedInputException'),
    t('com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException'),
    t('com.fasterxml.jackson.databind.exc.InvalidFormatException'),
    t('com.fasterxml.jackson.databind.exc.InvalidDefinitionException'),
    t('com.fasterxml.jackson.core.JsonProcessingException'),
    t('org.springframework.http.converter.HttpMessageNotReadableException'),
    t('java.lang.NumberFormatException'),
    t('java.time.format.DateTimeParseException'),
    t('kotlinx.serialization.SerializationException'),
  ],
  'jvm.validation': [
    t('jakarta.validation.ConstraintViolationException'),
    t('org.springframework.web.bind.MethodArgumentNotValidException'),
    t('org.springframework.dao.DataIntegrityViolationException'),
    t('org.springframework.dao.DuplicateKeyException'),
    t('jakarta.persistence.EntityNotFoundException'),
    t('org.springframework.dao.EmptyResultDataAccessException'),
    t('java.util.NoSuchElementException'),
    t('feign.FeignException$BadRequest'),
    t('org.springframework.web.client.HttpClientErrorException$NotFound'),
    t('feign.FeignException$UnprocessableEntity'),
    t('feign.FeignException$Conflict'),
  ],
  'python.network': [
    t('requests.exceptions.ConnectionError'),
    t('ConnectionRefusedError'),
    t('ConnectionResetError'),
    t('ConnectionAbortedError'),
    t('BrokenPipeError'),
    t('requests.exceptions.ConnectTimeout'),
    t('requests.exceptions.ReadTimeout'),
    t('httpx.ConnectError'),
    t('httpx.PoolTimeout'),
    t('httpx.RemoteProtocolError'),
    t('urllib3.exceptions.NewConnectionError'),
    t('urllib3.exceptions.MaxRetryError'),
    t('socket.gaierror'),
    t('socket.timeout'),
    t('TimeoutError'),
    t('requests.exceptions.Timeout'),
  ],
  'python.database': [
    t('psycopg2.errors.DeadlockDetected'),
    t('psycopg.errors.LockNotAvailable'),
    t('psycopg2.errors.SerializationFailure'),
    t('psycopg2.errors.AdminShutdown'),
    t('psycopg2.errors.CannotConnectNow'),
    t('psycopg2.errors.TooManyConnections'),
  ],
  'python.throttling': [t('botocore.errorfactory.ThrottlingException'), t('SlowDown'), t('ServiceUnavailable'), t('TooManyRequests')],
  'python.parse': [t('json.decoder.JSONDecodeError'), t('UnicodeDecodeError'), t('jwt.exceptions.DecodeError'), t('dateutil.parser.ParserError')],
  'python.validation': [
    t('pydantic_core._pydantic_core.ValidationError'),
    t('sqlalchemy.exc.IntegrityError'),
    t('psycopg2.errors.UniqueViolation'),
    t('psycopg2.errors.ForeignKeyViolation'),
    t('psycopg2.errors.NotNullViolation'),
    t('psycopg2.errors.CheckViolation'),
    t('Order.DoesNotExist'),
    t('django.core.exceptions.ObjectDoesNotExist'),
    t('sqlalchemy.orm.exc.NoResultFound'),
    t('psycopg2.errors.InvalidTextRepresentation'),
    t('psycopg2.DataError'),
  ],
  'go.network': [
    m('dial tcp 10.0.0.7:443: i/o timeout'),
    m('context deadline exceeded'),
    m('read tcp 10.0.0.2:5432: connection reset by peer'),
    m('unexpected EOF'),
    m('net/http: TLS handshake timeout'),
    m('lookup members on 10.0.0.2:53: server misbehaving'),
  ],
  'go.parse': [
    m('json: cannot unmarshal string into Go struct field Order.quantity of type int'),
    m('strconv.Atoi: parsing "two": invalid syntax'),
    m('proto: cannot parse invalid wire-format data'),
    m('unexpected end of JSON input'),
  ],
  'dotnet.network': [
    t('System.TimeoutException'),
    t('System.Threading.Tasks.TaskCanceledException'),
    t('System.Net.Sockets.SocketException'),
    t('System.IO.IOException'),
    t('Polly.Timeout.TimeoutRejectedException'),
    t('Polly.CircuitBreaker.BrokenCircuitException'),
    t('Polly.CircuitBreaker.IsolatedCircuitException'),
    t('Npgsql.NpgsqlTimeoutException'),
  ],
  'dotnet.sql': [
    m('Transaction (Process ID 62) was deadlocked on lock resources with another process'),
    m('A transport-level error has occurred when receiving results from the server'),
    m('A network-related or instance-specific error occurred while establishing a connection to SQL Server'),
    m('Execution Timeout Expired.'),
  ],
  'dotnet.parse': [
    t('System.Text.Json.JsonException'),
    t('Newtonsoft.Json.JsonReaderException'),
    t('Newtonsoft.Json.JsonSerializationException'),
    t('System.FormatException'),
    t('System.InvalidCastException'),
  ],
  'dotnet.validation': [
    t('FluentValidation.ValidationException'),
    t('Microsoft.EntityFrameworkCore.DbUpdateConcurrencyException'),
    t('System.Collections.Generic.KeyNotFoundException'),
  ],
  'ruby.network': [
    t('Net::ReadTimeout'),
    t('Net::OpenTimeout'),
    t('Net::WriteTimeout'),
    t('Errno::ECONNREFUSED'),
    t('Errno::ECONNRESET'),
    t('Errno::ETIMEDOUT'),
    t('Errno::EHOSTUNREACH'),
    t('SocketError'),
    t('Faraday::ConnectionFailed'),
    t('Faraday::TimeoutError'),
    t('Faraday::ServerError'),
    t('Faraday::TooManyRequestsError'),
    t('Redis::CannotConnectError'),
    t('PG::ConnectionBad'),
  ],
  'ruby.database': [
    t('ActiveRecord::Deadlocked'),
    t('ActiveRecord::LockWaitTimeout'),
    t('ActiveRecord::ConnectionNotEstablished'),
    t('ActiveRecord::ConnectionTimeoutError'),
    t('ActiveRecord::QueryCanceled'),
  ],
  'ruby.parse': [t('JSON::ParserError'), t('Psych::ParseError')],
  'ruby.validation': [
    t('ActiveRecord::RecordNotFound'),
    t('ActiveRecord::RecordInvalid'),
    t('ActiveRecord::RecordNotUnique'),
    t('ActiveRecord::NotNullViolation'),
    t('ActiveRecord::InvalidForeignKey'),
    t('Faraday::ResourceNotFound'),
    t('Faraday::BadRequestError'),
    t('Faraday::UnprocessableEntityError'),
  ],
  'php.network': [t('GuzzleHttp\\Exception\\ConnectException'), t('GuzzleHttp\\Exception\\ServerException')],
  'php.pdo': [
    m('SQLSTATE[HY000] [2002] php_network_getaddresses failed'),
    m('SQLSTATE[HY000] [2006] MySQL server has gone away'),
    m('SQLSTATE[08006] [7] FATAL'),
    m('SQLSTATE[40001]: Serialization failure'),
    m('SQLSTATE[40P01]'),
  ],
  'php.parse': [t('JsonException'), t('Symfony\\Component\\Serializer\\Exception\\NotEncodableValueException'), t('UnexpectedValueException')],
  'php.validation': [
    t('Illuminate\\Database\\Eloquent\\ModelNotFoundException'),
    t('Symfony\\Component\\HttpKernel\\Exception\\NotFoundHttpException'),
    t('Illuminate\\Database\\UniqueConstraintViolationException'),
  ],
  'rust.network': [
    t('tokio::time::error::Elapsed'),
    m('error returned from database: PoolTimedOut'),
    m('hyper::Error(IncompleteMessage): connection closed before message completed'),
    m('Os { code: 111, kind: ConnectionRefused }'),
    m('kind: TimedOut'),
  ],
  'rust.parse': [
    m('expected value at line 1 column 1'),
    m('missing field `sku` at line 1 column 42'),
    m('unknown variant `gift`, expected one of `order`'),
    m('invalid type: string "two", expected u32'),
  ],
  'rust.not-found': [m('RowNotFound')],
  'beam.network': [
    t('DBConnection.ConnectionError'),
    t('Mint.TransportError'),
    m('** (Mint.TransportError) :econnrefused'),
    m('%Mint.TransportError{reason: :closed}'),
    m(':nxdomain'),
    m(':ehostunreach'),
    m('ERROR 40P01 (deadlock_detected)'),
    m('ERROR 55P03 (lock_not_available)'),
  ],
  'beam.parse': [t('Jason.DecodeError')],
  'beam.validation': [t('Ecto.NoResultsError'), t('Ecto.InvalidChangesetError'), t('Ecto.ConstraintError'), t('Ecto.Query.CastError'), t('Ecto.ChangeError')],
  'cloud.grpc-transient': [m('14 UNAVAILABLE: No connection established'), m('4 DEADLINE_EXCEEDED'), m('10 ABORTED: transaction aborted')],
  'cloud.aws-throttling': [
    m('RequestLimitExceeded'),
    m('ProvisionedThroughputExceeded'),
    m('ThrottlingException'),
    m('TooManyRequestsException'),
    m('RequestThrottled'),
    m('ServerBusy'),
    m('SlowDown'),
    m('ServiceUnavailable'),
    m('InternalError'),
  ],
  'cloud.grpc-permanent': [m('3 INVALID_ARGUMENT: bad order id'), m('5 NOT_FOUND'), m('6 ALREADY_EXISTS'), m('9 FAILED_PRECONDITION')],
};

const entries = Object.entries(ERROR_RULES).flatMap(([runtime, rules]) => (rules as readonly ErrorRule[]).map((rule) => ({ runtime, rule })));

describe('error classes, per runtime and entry', () => {
  it('names every entry once, and every entry has examples', () => {
    const names = entries.map((e) => e.rule.name);
    expect(new Set(names).size).toBe(names.length);
    expect(Object.keys(EXAMPLES).sort()).toEqual([...names].sort());
  });

  it.each(entries.map((e) => [e.rule.name, e.rule] as const))('%s', (_name, rule) => {
    const examples = EXAMPLES[rule.name]!;
    // A type entry: each of its names has an example.
    if (rule.types)
      for (const name of rule.types)
        expect(
          examples.some((x) => x.type && typeName(x.type) === name.toLowerCase()),
          name,
        ).toBe(true);
    for (const x of examples) {
      // The entry itself matches its example, and the whole table agrees on the class.
      const matched = matchesType(rule, x.type) || (!!rule.message && rule.message.test(`${x.type}: ${x.message}`));
      expect(matched, JSON.stringify(x)).toBe(true);
      expect(classifyError(x).class, JSON.stringify(x)).toBe(rule.class);
    }
  });
});

// A message of an HttpError, and the class its status gives it.
const BY_HTTP_STATUS: Record<string, string> = {
  'member service answered 503': 'transient',
  'payment gateway returned 503 for capture cap_100001': 'transient',
  '503 Service Unavailable': 'transient',
  'Response status code does not indicate success: 502 (Bad Gateway).': 'transient',
  'Request failed with status code 500': 'transient',
  'HTTP 429': 'transient',
  'status=504': 'transient',
  'Request failed with status code 404': 'permanent',
  'HTTP/1.1 422 Unprocessable Entity': 'permanent',
  'got 400 from catalog': 'permanent',
  '409 Conflict': 'permanent',
};

describe('HTTP statuses in a message', () => {
  it.each(Object.entries(BY_HTTP_STATUS))('%s → %s', (message, cls) => {
    expect(classifyError({ type: 'HttpError', message }).class).toBe(cls);
  });

  it('reads a number as a status only where the message says so', () => {
    expect(httpStatuses('order 503 has 429 items')).toEqual([]);
    expect(classifyError({ type: 'Error', message: 'order 503 has 429 items' }).class).toBe('unknown');
  });
});

describe('precedence and the broker reason', () => {
  it('a type in the table decides over the words of the message', () => {
    expect(classifyError({ type: 'ValidationError', message: 'timeout must be a number' })).toEqual({ class: 'permanent', rule: 'node.validation' });
    expect(classifyError({ type: 'TimeoutError', message: 'order not found in cache before timeout' }).class).toBe('transient');
  });

  it('transient words win over permanent ones: a gateway page parsed as JSON is an outage', () => {
    expect(classifyError({ type: 'Error', message: 'Unexpected token < in JSON: <html>503 Service Unavailable</html>' }).class).toBe('transient');
    expect(classifyError({ type: 'Error', message: 'getaddrinfo ENOTFOUND members.internal' }).rule).toBe('common.dns');
  });

  it.each(Object.entries(REASON_CLASSES))('reason %s → %s when the error says nothing', (reason, cls) => {
    expect(classifyError({ type: null, message: null, reason })).toEqual({ class: cls, rule: `reason.${reason}` });
    // The error's words still come first.
    expect(classifyError({ type: 'SyntaxError', message: 'Unexpected token', reason }).class).toBe('permanent');
  });

  it('an error that names no known cause is unknown', () => {
    for (const x of [
      { type: 'Error', message: 'no handler for order.gift_wrapped', reason: 'MaxReceives' },
      { type: null, message: null, reason: 'Rejected' },
      {},
    ]) {
      expect(classifyError(x)).toEqual({ class: 'unknown', rule: null });
    }
  });
});
