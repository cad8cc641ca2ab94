export function HomePage() {
  return <div>Home</div>;
}
