import { Link } from 'react-router';
import classes from './Community.module.css';
import { safeLogo } from './community-rules';
import { useCommunity } from './hooks';

/** In the header while a community context is set: its logo (or handle) linking to its landing page. */
export function CommunityMark({ orgId }: { orgId: string }) {
  const handle = orgId.replace(/^org-/, '');
  const community = useCommunity(orgId);
  const logo = safeLogo(community.data?.assets.headerLogo);
  const name = community.data?.name ?? handle;
  return (
    <Link to={`/panx/communities/${encodeURIComponent(handle)}/home`} className={classes.mark} title={`Community context: ${name}`}>
      {logo && <img src={logo} alt="" className={classes.markLogo} />}
      <span className={classes.markName}>{name}</span>
    </Link>
  );
}
