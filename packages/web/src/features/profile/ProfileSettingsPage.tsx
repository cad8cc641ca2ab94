export function ProfileSettingsPage() {
  return <div>Settings</div>;
}
