import { Alert, Anchor, Button, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { Navigate, useSearchParams } from 'react-router';
import { safeReturnTo } from '../../app/route-rules';
import { describeError } from '../../ui/describe-error';
import { needsOneTimeCode, useSignIn } from './hooks';
import classes from './LoginPage.module.css';
import { useSession } from './session';

const REASONS: Record<string, { color: string; text: string }> = {
  expired: { color: 'yellow', text: 'Your session has ended. Sign in again to continue where you were.' },
  'signed-out': { color: 'blue', text: 'You have signed out.' },
  'password-changed': { color: 'blue', text: 'Your password was changed and every session was signed out. Sign in with the new password.' },
};

/** Sign-in (password, then the one-time code when the account has two-factor authentication). */
export function LoginPage() {
  const [params] = useSearchParams();
  const { session, endReason } = useSession();
  const signIn = useSignIn();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [otp, setOtp] = useState('');
  const [step, setStep] = useState<'password' | 'otp'>('password');
  const otpRef = useRef<HTMLInputElement>(null);
  const returnTo = safeReturnTo(params.get('returnTo'));
  const reason = REASONS[params.get('reason') ?? endReason ?? ''];

  useEffect(() => {
    if (step === 'otp') otpRef.current?.focus();
  }, [step]);

  if (session) return <Navigate to={returnTo} replace />;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!username.trim() || !password) return;
    signIn.mutate(
      { username, password, ...(step === 'otp' ? { otp } : {}) },
      {
        onError: (error) => {
          if (step === 'password' && needsOneTimeCode(error)) {
            signIn.reset();
            setStep('otp');
          }
        },
      },
    );
  };

  const error = signIn.error && !(step === 'password' && needsOneTimeCode(signIn.error)) ? signIn.error : null;
  const otpValid = /^[0-9]{6}$/.test(otp);

  return (
    <div className={classes.page}>
      <Paper withBorder shadow="sm" p="xl" radius="md" className={classes.card}>
        <form onSubmit={submit} noValidate aria-label="Sign in">
          <Stack gap="md">
            <div>
              <Title order={1} size="h2">
                Sign in to Panx
              </Title>
              <Text c="dimmed" size="sm">
                {step === 'password' ? 'Use your Panx username and password.' : 'Enter the 6-digit code from your authenticator app.'}
              </Text>
            </div>
            {reason && !error && (
              <Alert color={reason.color} variant="light" data-testid="login-reason">
                {reason.text}
              </Alert>
            )}
            {error && (
              <Alert color="red" variant="light" role="alert" title="Could not sign in">
                {describeError(error)}
              </Alert>
            )}
            {step === 'password' ? (
              <>
                <TextInput
                  label="Username"
                  name="username"
                  autoComplete="username"
                  autoCapitalize="none"
                  spellCheck={false}
                  required
                  autoFocus
                  value={username}
                  onChange={(event) => setUsername(event.currentTarget.value)}
                />
                <PasswordInput
                  label="Password"
                  name="password"
                  autoComplete="current-password"
                  required
                  value={password}
                  onChange={(event) => setPassword(event.currentTarget.value)}
                />
              </>
            ) : (
              <TextInput
                ref={otpRef}
                label="One-time code"
                name="otp"
                inputMode="numeric"
                autoComplete="one-time-code"
                maxLength={6}
                placeholder="123456"
                description="Two-factor authentication is on for this account."
                value={otp}
                onChange={(event) => setOtp(event.currentTarget.value.replace(/\D/g, '').slice(0, 6))}
              />
            )}
            <Button type="submit" loading={signIn.isPending} disabled={step === 'password' ? !username.trim() || !password : !otpValid} fullWidth>
              {step === 'password' ? 'Sign in' : 'Verify'}
            </Button>
            {step === 'otp' && (
              <Anchor
                component="button"
                type="button"
                size="sm"
                onClick={() => {
                  setStep('password');
                  setOtp('');
                  signIn.reset();
                }}
              >
                Use a different account
              </Anchor>
            )}
          </Stack>
        </form>
      </Paper>
    </div>
  );
}
