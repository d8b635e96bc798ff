// A filter the page could not apply, announced to screen readers.
export function Problem({ message }: { message: string }) {
  return (
    <p className="error" role="alert">
      {message}
    </p>
  );
}
