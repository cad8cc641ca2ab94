import { Alert, Anchor, Button, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { safeReturnTo, withBase } from '../../app/route-rules';
import { describeError } from '../../ui/describe-error';
import { cleanSecondFactorInput, isCompleteSecondFactor, savePendingEnrolment, setupRequiredDetails } from '../two-factor/enrolment';
import { tabStorage } from '../two-factor/storage';
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
  const [backup, setBackup] = useState(false);
  const navigate = useNavigate();
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
            return;
          }
          // An org policy or the account requires two-factor authentication: set it up first (SPEC §2).
          const setup = setupRequiredDetails(error);
          if (setup) {
            savePendingEnrolment(tabStorage(), {
              token: setup.enrolmentToken,
              expires: setup.expires,
              username: username.trim(),
              requiredBy: setup.requiredBy,
            });
            navigate(`${withBase('/setup/2fa')}?${new URLSearchParams({ returnTo })}`);
          }
        },
      },
    );
  };

  const error = signIn.error && !(step === 'password' && needsOneTimeCode(signIn.error)) && !setupRequiredDetails(signIn.error) ? signIn.error : null;
  const otpValid = isCompleteSecondFactor(otp, backup);

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
                {step === 'password'
                  ? 'Use your Panx username and password.'
                  : backup
                    ? 'Enter one of your backup codes (each works once).'
                    : 'Enter the 6-digit code from your authenticator app.'}
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
                label={backup ? 'Backup code' : 'One-time code'}
                name="otp"
                inputMode={backup ? 'text' : 'numeric'}
                autoComplete="one-time-code"
                autoCapitalize="none"
                spellCheck={false}
                maxLength={backup ? 14 : 6}
                placeholder={backup ? 'abcd-efgh-ijkm' : '123456'}
                description="Two-factor authentication is on for this account."
                value={otp}
                onChange={(event) => setOtp(cleanSecondFactorInput(event.currentTarget.value, backup))}
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
                  setBackup(!backup);
                  setOtp('');
                  signIn.reset();
                  otpRef.current?.focus();
                }}
              >
                {backup ? 'Use the code from your app instead' : 'Lost your phone? Use a backup code'}
              </Anchor>
            )}
            {step === 'otp' && (
              <Anchor
                component="button"
                type="button"
                size="sm"
                onClick={() => {
                  setStep('password');
                  setOtp('');
                  setBackup(false);
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
